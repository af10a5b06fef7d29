// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof confirm`'s text output, and the workbench's line when a confirmation ends: the
// record of analysis/confirmation.h in sentences.

#include "analysis/confirmation.h"

#include <QString>

namespace commprof::report {

QString describe(const analysis::Confirmation& c);

} // namespace commprof::report
