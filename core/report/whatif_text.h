// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A what-if (analysis/whatif.h) as `commprof trace whatif` prints it, in JSON (docs/cli.md) and
// in text: rendering lives here, beside the other outputs, so analysis only computes.

#include "analysis/whatif.h"

#include <QJsonObject>
#include <QString>

namespace commprof::report {

QJsonObject toJson(const analysis::WhatIf& w);
QString describe(const analysis::WhatIf& w);

} // namespace commprof::report
