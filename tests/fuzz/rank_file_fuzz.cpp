// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the rank-file reader and what is computed from a rank file
// (tests/fuzz/rank_file_input.h).

#include "fuzz/rank_file_input.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    commprof::fuzz::exerciseRankFile(reinterpret_cast<const char*>(data), size);
    return 0;
}
