// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Waiting, with the event loop running, until a background job tracker has nothing left to
// do: what every GUI test and the screenshot tool do before looking at a view.

#include "jobs/job_tracker.h"

#include <QElapsedTimer>
#include <QTest>

// True when T went idle within MS milliseconds.
inline bool waitIdle(commprof::jobs::JobTracker* t, int ms = 60000) {
    QElapsedTimer clock;
    clock.start();
    while (t->running() && clock.elapsed() < ms) {
        QTest::qWait(10);
    }
    return !t->running();
}
