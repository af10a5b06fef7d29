// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_args.h"

#include <cstdint>
#include <cstdlib> // and with it __GLIBC__

#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace commprof::cli {

// A fresh page costs a fault when it is first written. On the project's virtual machine a 4 KiB
// fault cost about 10 us, and reading the 54 MB fixture faulted in some 27 MiB of arrays: most
// of the process's system time, which made it 1.2x zcat's CPU. A 2 MiB page takes one fault
// for 512. The heap is grown once by 64 MiB (M_TOP_PAD) and advised as huge pages; every block
// below 32 MiB then comes from it (the threshold fixed), one arena serves the parsing threads
// too (a thread's own arena would be fresh small pages), and nothing is trimmed back. Advice
// only: with THP off the kernel ignores it.
void heapInHugePages() {
#ifdef __GLIBC__
    constexpr std::size_t kPad = std::size_t(64) << 20;
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, int(kPad));
    const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const auto lo = (reinterpret_cast<std::uintptr_t>(::sbrk(0)) + page - 1) & ~(page - 1);
    // Larger than any free space at the heap's top, so the heap grows by it and the pad.
    void* volatile grow = std::malloc(16 << 20);
    std::free(grow);
    const auto hi = reinterpret_cast<std::uintptr_t>(::sbrk(0));
    if (hi > lo) {
        ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
    }
#endif
}

// glibc serves a block above its mmap threshold from the kernel and gives it back on free, but
// raises the threshold to the size of each such block freed: after the first trace, every
// trace's event and span arrays came from the heap, and the ranks' reductions, allocated between
// them, kept the freed space from going back. 64 ranks then peaked at 2.03x one rank's RSS with
// 72 of its 78 MiB of heap free; with the threshold fixed, 1.65x, for 8 % more CPU time (the
// arrays' pages faulted in again for each trace; docs/performance.md).
void keepLargeBlocksOutOfTheHeap() {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
#endif
}

} // namespace commprof::cli
