// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one way the trace parser spreads work over threads: work(index, worker) for every index
// in [0, n), on up to `threads` threads, the calling one among them. Indices are handed out in
// increasing order, each to whichever thread asks next, so index 0 always starts first (the
// streamed reader relies on that: its index 0 is the thread the others wait for).
//
// `worker` is the running thread's number in [0, min(threads, n)), for per-thread state that
// is worth keeping from one index to the next (a simdjson parser and its buffers).
//
// A thread that cannot be started (the system has none left) leaves its share to the threads
// that were, the calling one at least, so the work is always done. Room for the threads is
// made before the first is started, so no failure can leave a started thread unjoined.
//
// The first exception thrown by work is rethrown once every thread has ended; indices not yet
// handed out by then are not run.

#include <cstddef>
#include <functional>

namespace commprof::trace {

void parallelFor(std::size_t n, int threads,
                 const std::function<void(std::size_t index, std::size_t worker)>& work);

} // namespace commprof::trace
