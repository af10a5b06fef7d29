// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof's command line: the one table that main parses every command's line by, and that
// --help, the usage lines, the man page and the completions are rendered from.

#include "option_table.h"

namespace commprof::cli {

const options::Program& commprofProgram();

} // namespace commprof::cli
