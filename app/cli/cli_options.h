#pragma once
// commprof's command line, the one table that --help, the man page and the completions come
// from, and that main checks every flag against before a command runs.

#include "option_table.h"

namespace commprof::cli {

const options::Program& commprofProgram();

} // namespace commprof::cli
