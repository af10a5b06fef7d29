// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A parameters file (docs/formats.md, "DDP parameters"; analysis/ddp_params.h says what it
// holds), read and checked: what `--params FILE` and a params.json beside a job's traces give.

#include "analysis/ddp_params.h"

#include <QString>

namespace commprof::inputs {

// Reads a parameters file. Throws trace::TraceError naming the file and what is wrong with it
// ("PATH: params[3].dtype: ...").
analysis::DdpParams readDdpParams(const QString& path);

} // namespace commprof::inputs
