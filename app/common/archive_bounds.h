// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A TorchScript file is a zip archive, and torch::jit::load allocates each record at the size
// the archive declares for it before inflating it, so the declared sizes are read from the
// central directory first, without torch. Plain C++17: commprof-rank checks a module here
// before loading it, and `commprof model describe` before its Python loads one.

#include <cstdint>
#include <string>

namespace commprof {

// torch.jit.save stores its records uncompressed, so what a module unpacks to is about its
// file's size; an archive may declare up to this many times its size (plus kArchiveSlackBytes).
inline constexpr std::uint64_t kArchiveUnpackFactor = 4;
inline constexpr std::uint64_t kArchiveSlackBytes = std::uint64_t{1} << 20;

// Empty when `file`'s zip records together declare at most kArchiveUnpackFactor times the file's
// size (plus the slack); else why not, naming the file. An archive whose directory cannot be
// read is left to torch::jit::load, which says what is wrong with it.
std::string archiveTooLarge(const std::string& file);

} // namespace commprof
