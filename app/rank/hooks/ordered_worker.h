// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One thread that runs jobs in the order they were posted. A hook whose bucket needs several
// collectives in a row (PowerSGD) runs them here: every rank then issues its collectives in
// bucket order, whichever bucket's all-reduce happens to finish first, so the collectives of
// two buckets can never be paired across ranks the wrong way round.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace commprof::rank {

class OrderedWorker {
public:
    OrderedWorker();
    ~OrderedWorker(); // runs what is queued, then joins
    OrderedWorker(const OrderedWorker&) = delete;
    OrderedWorker& operator=(const OrderedWorker&) = delete;
    void post(std::function<void()> job);

private:
    void loop();
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false;
    std::thread thread_;
};

} // namespace commprof::rank
