// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A JSON value's kind in words, for messages that say what a field held instead.

#include <QJsonValue>
#include <QString>

namespace commprof::results {

// "a string \"1\"", "a number", "null", "an array", ...
QString describeJson(const QJsonValue& v);

} // namespace commprof::results
