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

// Reserves room for `count` elements and advises huge pages for the whole ones inside it.
template <class T> void reserveHuge(std::vector<T>& v, std::size_t count) {
    v.reserve(count);
    const auto data = reinterpret_cast<std::uintptr_t>(v.data());
    const auto begin = (data + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (data + v.capacity() * sizeof(T)) & ~(kHugePage - 1);
    if (end > begin) {
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    }
}

} // namespace commprof::trace
