// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How `commprof trace summarize` has glibc's malloc lay out its memory, decided once per process
// before the traces are read (docs/performance.md measures both).

namespace commprof::cli {

// One trace: the heap in transparent huge pages, for every thread.
void heapInHugePages();

// A job's traces one after another: large blocks from the kernel and back to it.
void keepLargeBlocksOutOfTheHeap();

} // namespace commprof::cli
