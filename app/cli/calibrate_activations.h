// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof calibrate FILE.pt: the activation term of a TorchScript module measured by the rank
// itself, written into the description beside it, where plan reads it.

#include "cli_common.h"

namespace commprof::cli {

int calibrateActivations(const Args& args, const QString& module);

} // namespace commprof::cli
