// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What one rank flag's text means: each reader turns a value into RankOptions fields or throws a
// UsageError naming the flag (or the environment variable standing in for it). The rows of
// rank_flags.cpp call them; plain C++, no torch, so --help's renderers link them too.

#include "option_table.h"
#include "options.h"

#include <string>
#include <vector>

namespace commprof::rank {

// Whole-string numbers: "7x" is refused, not read as 7.
int toInt(const std::string& flag, const std::string& v);
double toDouble(const std::string& flag, const std::string& v);

// The value when it is one of the row's choices, refused in the table's words otherwise.
std::string oneOf(const options::Option& row, const std::string& v);

// "all" (empty) or "0,3,8-15".
std::vector<int> parseRanks(const std::string& flag, const std::string& v);
// "R:MS": rank R sleeps MS milliseconds before each forward (--delay-rank, COMMPROF_DELAY_RANK).
void readDelay(const std::string& flag, const std::string& v, RankOptions& o);
// 0..60000 ms (--hook-delay-ms, COMMPROF_HOOK_DELAY_MS).
double parseHookDelay(const std::string& flag, const std::string& v);

// The flags whose values have a grammar of their own; each adds to `o` as the flag says.
void readInputShape(const std::string& flag, const std::string& v, RankOptions& o);
void readFpIters(const std::string& flag, const std::string& v, RankOptions& o);
void readSweepKinds(const std::string& flag, const std::string& v, RankOptions& o);
void readPerturb(const std::string& flag, const std::string& v, RankOptions& o);

} // namespace commprof::rank
