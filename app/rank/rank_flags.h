// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof-rank's command line as a table: each row is a flag's documentation (what --help, the
// man page and the completions render) and what the flag does to RankOptions, so the parser
// cannot accept a flag the documentation lacks, or the other way round. Plain C++, no torch.

#include "option_table.h"
#include "options.h"

#include <string>
#include <vector>

namespace commprof::rank {

struct RankFlag {
    options::Option option;
    // Applies the flag's value (empty for a switch) to `o`; throws a UsageError naming the flag.
    void (*set)(RankOptions& o, const options::Option& row, const std::string& value);
};

// In the order --help lists them.
const std::vector<RankFlag>& rankFlags();
// The rows' options, with the program's name, description and sections.
const options::Program& rankProgram();

} // namespace commprof::rank
