// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The reader's words for a file of which only a part was read: its text cut short (a gzip
// stream or JSON that ends early) or broken with the rest unread. The reader writes its
// warnings with these words and the readers of a job (ddp_steps.h) recognise them here, so a
// rank read from a cut file is flagged wherever the job is shown, never presented as whole.

#include <string>
#include <string_view>

namespace commprof::trace {

inline constexpr std::string_view kEndsEarly = "ends early";           // cut short
inline constexpr std::string_view kJsonBreaks = "JSON breaks at byte"; // rest unread

// Whether a warning of the reader says only a part of the file was read.
inline bool saysReadInPart(std::string_view warning) {
    return warning.find(kEndsEarly) != std::string_view::npos ||
           warning.find(kJsonBreaks) != std::string_view::npos;
}

} // namespace commprof::trace
