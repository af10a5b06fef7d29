// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Binary units, as every size in commprof is counted (a bucket cap of 25 MiB, a budget in GiB).
// Plain C++17, header-only.

namespace commprof::spec {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * kMiB;

} // namespace commprof::spec
