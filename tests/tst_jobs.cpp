// SPDX-License-Identifier: GPL-3.0-or-later
// The background-job mechanism: the latest request wins, cancel drops a running job's result,
// errors from a worker arrive as messages, progress is reported, and a tracker that is gone
// is never called back.

#include "jobs/job_tracker.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <stdexcept>

using namespace commprof;

namespace {

// Sleeps in small steps so a test never waits long for a job that noticed it is stale.
void sleepUnlessCancelled(const jobs::JobContext& context, int ms,
                          std::atomic<bool>* noticed = nullptr) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < ms) {
        if (context.cancelled() && noticed) {
            *noticed = true;
            return;
        }
        QThread::msleep(5);
    }
}

} // namespace

class TstJobs : public QObject {
    Q_OBJECT
private slots:
    void laterRequestWinsOverASlowerEarlierOne() {
        jobs::JobTracker tracker;
        QStringList shown;
        QSignalSpy finished(&tracker, &jobs::JobTracker::finished);
        std::atomic<bool> slowStarted{false};
        tracker.start(
            "slow",
            [&slowStarted](const jobs::JobContext& c) {
                slowStarted = true;
                sleepUnlessCancelled(c, 400); // finishes after the later job
                return QString("A");
            },
            [&](const QString& r) { shown << r; });
        QTRY_VERIFY(slowStarted.load()); // the race needs both jobs really running
        tracker.start(
            "fast", [](const jobs::JobContext&) { return QString("B"); },
            [&](const QString& r) { shown << r; });
        QTRY_COMPARE(shown, QStringList{"B"});
        QVERIFY(!tracker.running());
        QTest::qWait(700); // A has finished by now; its result must not appear
        QCOMPARE(shown, QStringList{"B"});
        QCOMPARE(finished.count(), 1);
    }

    void cancelDropsTheResultAndTheWorkSeesIt() {
        jobs::JobTracker tracker;
        std::atomic<bool> noticed{false};
        bool delivered = false;
        QSignalSpy finished(&tracker, &jobs::JobTracker::finished);
        tracker.start(
            "long",
            [&noticed](const jobs::JobContext& c) {
                sleepUnlessCancelled(c, 5000, &noticed);
                return 1;
            },
            [&](int) { delivered = true; });
        QVERIFY(tracker.running());
        QTest::qWait(50);
        tracker.cancel();
        QCOMPARE(finished.count(), 1); // idle at once, not when the worker returns
        QVERIFY(!tracker.running());
        QTRY_VERIFY(noticed.load());
        QTest::qWait(100);
        QVERIFY(!delivered);
    }

    void anExceptionInTheWorkIsAMessage() {
        jobs::JobTracker tracker;
        QString viaCallback;
        QSignalSpy failed(&tracker, &jobs::JobTracker::failedWith);
        tracker.start(
            "parse x.yaml",
            [](const jobs::JobContext&) -> int {
                throw std::runtime_error("x.yaml:3:1: models: not a list");
            },
            [](int) { QFAIL("no result expected"); }, [&](const QString& m) { viaCallback = m; });
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.first().at(0).toString(), QString("parse x.yaml"));
        QCOMPARE(failed.first().at(1).toString(), QString("x.yaml:3:1: models: not a list"));
        QCOMPARE(viaCallback, QString("x.yaml:3:1: models: not a list"));
        QVERIFY(!tracker.running());
    }

    void anExceptionWhileShowingTheResultIsAMessage() {
        jobs::JobTracker tracker;
        QSignalSpy failed(&tracker, &jobs::JobTracker::failedWith);
        tracker.start(
            "show", [](const jobs::JobContext&) { return 1; },
            [](int) { throw std::logic_error("view could not take it"); });
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.first().at(1).toString(), QString("view could not take it"));
    }

    void progressArrivesInOrder() {
        jobs::JobTracker tracker;
        QSignalSpy progress(&tracker, &jobs::JobTracker::progressed);
        bool done = false;
        tracker.start(
            "ingest",
            [](const jobs::JobContext& c) {
                for (int i = 1; i <= 3; ++i) {
                    c.progress(i, 3, QString("cell %1").arg(i));
                }
                QThread::msleep(20);
                return 0;
            },
            [&](int) { done = true; });
        QTRY_VERIFY(done);
        QCOMPARE(progress.count(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(progress.at(i).at(0).toInt(), i + 1);
            QCOMPARE(progress.at(i).at(1).toInt(), 3);
            QCOMPARE(progress.at(i).at(2).toString(), QString("cell %1").arg(i + 1));
        }
    }

    void stepsRunOnePerTurnAndStopWhenCancelled() {
        jobs::JobTracker tracker;
        QList<int> ran;
        bool done = false;
        QSignalSpy progress(&tracker, &jobs::JobTracker::progressed);
        tracker.startSteps(
            "figures", 3, [&](int i) { ran << i; }, [&] { done = true; });
        QVERIFY(ran.isEmpty()); // nothing runs inside the call: the caller's slot returns first
        QTRY_VERIFY(done);
        QCOMPARE(ran, (QList<int>{0, 1, 2}));
        QCOMPARE(progress.count(), 3);

        ran.clear();
        done = false;
        tracker.startSteps(
            "figures", 100,
            [&](int i) {
                ran << i;
                if (i == 1) {
                    tracker.cancel();
                }
            },
            [&] { done = true; });
        QTest::qWait(200);
        QCOMPARE(ran, (QList<int>{0, 1}));
        QVERIFY(!done);
        QVERIFY(!tracker.running());

        QString failure;
        tracker.startSteps(
            "figures", 3,
            [&](int i) {
                if (i == 1) {
                    throw std::runtime_error("cannot write fig.pdf");
                }
            },
            [&] { done = true; }, [&](const QString& m) { failure = m; });
        QTRY_COMPARE(failure, QString("cannot write fig.pdf"));
        QVERIFY(!done);
    }

    void aTrackerThatIsGoneIsNeverCalledBack() {
        bool delivered = false;
        std::atomic<bool> started{false};
        std::atomic<bool> ran{false};
        {
            jobs::JobTracker tracker;
            tracker.start(
                "outlives its window",
                [&started, &ran](const jobs::JobContext&) {
                    started = true;
                    QThread::msleep(150);
                    ran = true;
                    return 1;
                },
                [&](int) { delivered = true; });
            QTRY_VERIFY(started.load());
        }
        QTRY_VERIFY(ran.load());
        QTest::qWait(100);
        QVERIFY(!delivered);
    }
};

QTEST_MAIN(TstJobs)
#include "tst_jobs.moc"
