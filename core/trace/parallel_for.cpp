// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace commprof::trace {

void parallelFor(std::size_t n, int threads,
                 const std::function<void(std::size_t index, std::size_t worker)>& work) {
    if (n == 0) {
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex errorMutex;
    std::exception_ptr error;
    auto run = [&](std::size_t worker) {
        for (std::size_t i = next++; i < n && !failed.load(std::memory_order_relaxed); i = next++) {
            try {
                work(i, worker);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(errorMutex);
                if (!error) {
                    error = std::current_exception();
                }
                failed = true;
            }
        }
    };
    const std::size_t extra = std::min<std::size_t>(std::size_t(std::max(threads, 1)), n) - 1;
    std::vector<std::thread> pool;
    pool.reserve(extra);
    try {
        for (std::size_t w = 1; w <= extra; ++w) {
            pool.emplace_back(run, w);
        }
    } catch (...) {
        // No more threads to be had (std::system_error): the ones started, and this one, do it
        // all.
    }
    run(0);
    for (auto& t : pool) {
        t.join();
    }
    if (error) {
        std::rethrow_exception(error);
    }
}

} // namespace commprof::trace
