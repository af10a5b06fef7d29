// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the matrix parser, expansion and planning (tests/fuzz/matrix_input.h).

#include "fuzz/matrix_input.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    commprof::fuzz::exerciseMatrix(reinterpret_cast<const char*>(data), size);
    return 0;
}
