// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_kind.h"

#include <QJsonDocument>

#include <map>

namespace commprof::results {

QString describeJson(const QJsonValue& v) {
    if (v.isString()) {
        return QString("a string \"%1\"").arg(v.toString().left(40));
    }
    static const std::map<QJsonValue::Type, const char*> kKinds{{QJsonValue::Null, "null"},
                                                                {QJsonValue::Bool, "a boolean"},
                                                                {QJsonValue::Double, "a number"},
                                                                {QJsonValue::Array, "an array"},
                                                                {QJsonValue::Object, "an object"}};
    const auto kind = kKinds.find(v.type());
    return kind == kKinds.end() ? "nothing" : kind->second;
}

QString compactJson(const QJsonValue& v) {
    // A document holds only an array or an object: the value is written inside one, then unwrapped.
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
        .mid(1)
        .chopped(1);
}

} // namespace commprof::results
