// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The bounds of a model's input, shared by the matrix entry that feeds a module, the description
// `commprof model describe` writes for it and that describe's flags: a description is never
// written with a value the plan and calibrate then refuse.

namespace commprof::matrix {

// The largest vocabulary a token model's input may give.
inline constexpr int kMaxVocab = 1 << 30;

} // namespace commprof::matrix
