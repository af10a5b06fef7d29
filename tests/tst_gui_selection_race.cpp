// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: two quick selections. The first cell's trace is the 54 MB benchmark trace (about a
// second to parse), the second's is small; selecting one then the other at once must end with
// the second cell's trace on screen, also after the first parse has finished.

#include "gui_helpers.h"
#include "jobs/job_tracker.h"
#include "main_window.h"
#include "models/step_table_model.h"
#include "results_view.h"
#include "shared_fixtures.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QThreadPool>

using namespace commprof;

class TstGuiSelectionRace : public QObject {
    Q_OBJECT
    SmokeRun smoke_;
    QString run_;

private slots:
    void initTestCase() {
        const QString error = smoke_.make();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        run_ = smoke_.dir;
    }

    void theLaterSelectionWins() {
        const QString big = kLargeSharedTrace;
        REQUIRE_FIXTURE(big);
        workbench::MainWindow w;
        w.show();
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.openResults(run_);
        QVERIFY(opened.wait(120000));
        QTRY_VERIFY_WITH_TIMEOUT(!w.traceJobs()->running(), 60000);
        // After ingest: the first cell's trace becomes the slow one.
        const QString slowCell = "mlp2m_gloo_cpu_ws1_r0";
        const QString fastCell = "mlp2m_gloo_cpu_ws2_r0";
        const QString slowTrace =
            QDir(run_).absoluteFilePath("cells/" + slowCell + "/trace_rank0.json.gz");
        const QString fastTrace =
            QDir(run_).absoluteFilePath("cells/" + fastCell + "/trace_rank0.json.gz");
        QVERIFY(QFile::remove(slowTrace));
        QVERIFY(QFile::copy(big, slowTrace));
        w.selectResultsCell(fastCell); // start from the other one, so both selections change it
        QTRY_VERIFY_WITH_TIMEOUT(!w.traceJobs()->running(), 60000);

        // The slow parse has started on the pool (superseded, it stops where it is, or it
        // ends first and its result waits), and the second selection comes before the event
        // loop could deliver any result, however fast the parse: the race is certain, not a
        // matter of timing.
        w.selectResultsCell(slowCell);
        QVERIFY(w.traceJobs()->running());
        QElapsedTimer started;
        started.start();
        while (QThreadPool::globalInstance()->activeThreadCount() == 0 &&
               started.elapsed() < 10000) {
            QThread::msleep(1); // no event loop here: nothing may be delivered yet
        }
        QVERIFY(QThreadPool::globalInstance()->activeThreadCount() > 0);
        w.selectResultsCell(fastCell);
        QTRY_VERIFY_WITH_TIMEOUT(!w.traceJobs()->running(), 60000);
        QCOMPARE(w.currentTrace(), fastTrace);
        // Every job, the slow parse included, has ended and its result has been delivered (or
        // dropped): the later selection still holds.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QCoreApplication::processEvents();
        QTest::qWait(50);
        QCOMPARE(w.currentTrace(), fastTrace);
        QCOMPARE(w.results()->selectedCell(), fastCell);
        const CliResult r = runCli("commprof", {"trace", "summarize", fastTrace, "--json"});
        QCOMPARE(w.steps()->rowCount(), r.json()["steps"].toArray().size() + 1);
    }
};

QTEST_MAIN(TstGuiSelectionRace)
#include "tst_gui_selection_race.moc"
