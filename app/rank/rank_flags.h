// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof-rank's command line as a table: parseOptions accepts exactly these flags, and
// --help, the man page and the completions are rendered from it. Plain C++, no torch.

#include "option_table.h"

namespace commprof::rank {

const options::Program& rankProgram();

} // namespace commprof::rank
