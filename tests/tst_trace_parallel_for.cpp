// SPDX-License-Identifier: GPL-3.0-or-later
// The parser's one way of using threads (trace/parallel_for.h): every index runs once, on no
// more threads than asked and always on the calling one; index 0 is handed out first, so work
// that waits for index 0 never waits forever, whatever the number of threads; and what the work
// throws comes back to the caller once every thread has ended.

#include "trace/parallel_for.h"

#include <QTest>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using commprof::trace::parallelFor;

class TstTraceParallelFor : public QObject {
    Q_OBJECT
private slots:
    void everyIndexRunsOnce_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("threads");
        for (int n : {0, 1, 7, 1000}) {
            for (int threads : {0, 1, 2, 3, 8}) {
                QTest::addRow("%d on %d", n, threads) << n << threads;
            }
        }
    }

    void everyIndexRunsOnce() {
        QFETCH(int, n);
        QFETCH(int, threads);
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
        std::mutex mutex;
        std::set<std::thread::id> ids;
        std::set<std::size_t> workers;
        parallelFor(std::size_t(n), threads, [&](std::size_t i, std::size_t worker) {
            ++runs[i];
            const std::lock_guard<std::mutex> lock(mutex);
            ids.insert(std::this_thread::get_id());
            workers.insert(worker);
        });
        for (int i = 0; i < n; ++i) {
            QCOMPARE(runs[std::size_t(i)].load(), 1);
        }
        const std::size_t most = std::size_t(std::min(std::max(threads, 1), std::max(n, 1)));
        QVERIFY(ids.size() <= most);
        QVERIFY(workers.empty() || *workers.rbegin() < most);
        if (threads <= 1 && n > 0) {
            QCOMPARE(ids, std::set<std::thread::id>{std::this_thread::get_id()});
            QCOMPARE(workers, std::set<std::size_t>{0});
        }
    }

    // The streamed reader's shape: index 0 produces, the others wait for it to finish.
    void waitingForIndexZeroNeverHangs() {
        for (int threads : {1, 2, 3}) {
            std::mutex mutex;
            std::condition_variable done;
            bool produced = false;
            std::atomic<int> consumers{0};
            parallelFor(3, threads, [&](std::size_t i, std::size_t) {
                std::unique_lock<std::mutex> lock(mutex);
                if (i == 0) {
                    produced = true;
                    done.notify_all();
                    return;
                }
                done.wait(lock, [&] { return produced; });
                ++consumers;
            });
            QCOMPARE(consumers.load(), 2);
        }
    }

    void whatTheWorkThrowsReachesTheCaller() {
        for (int threads : {1, 2, 4}) {
            std::atomic<int> ran{0};
            try {
                parallelFor(100, threads, [&](std::size_t i, std::size_t) {
                    ++ran;
                    if (i == 5) {
                        throw std::runtime_error("index 5");
                    }
                });
                QFAIL("nothing was thrown");
            } catch (const std::runtime_error& e) {
                QCOMPARE(QString(e.what()), QString("index 5"));
            }
            QVERIFY(ran >= 6);
        }
    }
};

QTEST_GUILESS_MAIN(TstTraceParallelFor)
#include "tst_trace_parallel_for.moc"
