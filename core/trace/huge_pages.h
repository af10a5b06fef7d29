// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Transparent huge pages for a trace's large arrays. A fresh page costs a page fault when it is
// first written, and on this project's virtual machine the faults of a 54 MB trace's arrays
// were most of the process's system time (docs/performance.md); a 2 MiB page takes one fault
// where 512 small ones took 512. Advice only: where the kernel has THP off, nothing changes.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commprof::trace {

inline constexpr std::size_t kHugePage = std::size_t(2) << 20;

// The whole huge pages inside [data, data + bytes).
inline void adviseHugePages(const void* data, std::size_t bytes) {
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHugePage - 1);
    if (end > begin) {
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    }
}

// Reserves room for `count` elements and advises huge pages for it.
template <class T> void reserveHuge(std::vector<T>& v, std::size_t count) {
    v.reserve(count);
    adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

} // namespace commprof::trace
