// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A JSON value's kind in words, for messages that say what a field held instead; a value as
// compact text; a list as an array.

#include <QJsonArray>
#include <QJsonValue>
#include <QString>

#include <functional>

namespace commprof::results {

// "a string \"1\"", "a number", "null", "an array", ...
QString describeJson(const QJsonValue& v);

// Any value as compact JSON ("8", "\"gloo\"", "[1,2]"), to compare values or to print one.
QString compactJson(const QJsonValue& v);

// f(x) for every x of `items` (x itself without f), as a JSON array.
template <typename Items, typename F = std::identity>
QJsonArray jsonArray(const Items& items, F f = {}) {
    QJsonArray out;
    for (const auto& x : items) {
        out.append(QJsonValue(std::invoke(f, x)));
    }
    return out;
}

} // namespace commprof::results
