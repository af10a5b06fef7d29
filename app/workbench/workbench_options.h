// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof-workbench's command line as a table: main builds its QCommandLineParser from it, and
// the man page and the completions are rendered from it too.

#include "option_table.h"

namespace commprof::workbench {

const options::Program& workbenchProgram();

} // namespace commprof::workbench
