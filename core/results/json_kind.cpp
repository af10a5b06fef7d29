// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_kind.h"

#include <QJsonDocument>

namespace commprof::results {

QString describeJson(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Null:
        return "null";
    case QJsonValue::Bool:
        return "a boolean";
    case QJsonValue::Double:
        return "a number";
    case QJsonValue::String:
        return QString("a string \"%1\"").arg(v.toString().left(40));
    case QJsonValue::Array:
        return "an array";
    case QJsonValue::Object:
        return "an object";
    case QJsonValue::Undefined:
        break;
    }
    return "nothing";
}

QString compactJson(const QJsonValue& v) {
    // A document holds only an array or an object: the value is written inside one, then unwrapped.
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
        .mid(1)
        .chopped(1);
}

} // namespace commprof::results
