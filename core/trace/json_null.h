// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A figure or a name that may be absent, as JSON: the value, or null (never a made-up 0 or "").

#include <QJsonValue>
#include <QString>

#include <optional>
#include <string>
#include <type_traits>

namespace commprof::trace {

inline QJsonValue numberOrNull(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
QJsonValue numberOrNull(const std::optional<T>& v) {
    return v ? QJsonValue(qint64(*v)) : QJsonValue(QJsonValue::Null);
}

inline QJsonValue textOrNull(const std::string& v) {
    return v.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromStdString(v));
}

inline QJsonValue textOrNull(const QString& v) {
    return v.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(v);
}

} // namespace commprof::trace
