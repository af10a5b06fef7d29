// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A figure that may be absent, as JSON: the number, or null (never a made-up 0).

#include <QJsonValue>

#include <cstdint>
#include <optional>

namespace commprof::analysis {

inline QJsonValue numberOrNull(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

inline QJsonValue numberOrNull(const std::optional<std::int64_t>& v) {
    return v ? QJsonValue(qint64(*v)) : QJsonValue(QJsonValue::Null);
}

} // namespace commprof::analysis
