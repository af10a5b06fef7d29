// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: bad input. A broken YAML, a file that is not a trace, a folder that is not a results
// folder and a truncated trace each put a visible message in front of the user (the message
// bar, or a dialog where the user must decide), and the process lives on. An exception that
// escapes a slot is caught by the application object and shown.

#include "application.h"
#include "gui_helpers.h"
#include "gzip_files.h"
#include "job_waits.h"
#include "jobs/job_tracker.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "message_bar.h"
#include "models/step_table_model.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

using namespace commprof;

namespace {

QStringList contents(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
}

} // namespace

class TstGuiErrors : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

private slots:
    void initTestCase() { isolateSettings(); }

    void aBrokenYamlIsMarkedAndSaid() {
        const QString path = work_.filePath("typo.yaml");
        QVERIFY(writeFile(path, "name: t\nmodels: [{name: m, params: 1e6}]\n"
                                "layers: [{name: gloo_cpu}]\nworld_sizez: [1]\n"));
        workbench::MainWindow w;
        w.show();
        QVERIFY(w.openMatrix(path));
        QTRY_COMPARE_WITH_TIMEOUT(w.designer()->errorLine(), 4, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(w.messages()->count(), 1, 5000);
        QVERIFY2(w.messages()->shownMessages().first().contains("typo.yaml:4:1"),
                 qPrintable(w.messages()->shownMessages().first()));
        QVERIFY(w.messages()->isVisible());
    }

    void aYamlWithANonScalarKeyLeavesTheProcessAlive() {
        workbench::MainWindow w;
        w.show();
        w.designer()->setText("name: k\n? [a, b]\n: 1\nmodels: [{name: m, params: 1e6}]\n"
                              "layers: [{name: gloo_cpu}]\nworld_sizes: [1]\n",
                              "nonscalar.yaml");
        QTRY_VERIFY_WITH_TIMEOUT(!w.designer()->errorText().isEmpty(), 30000);
        // Whatever the parser makes of it, it is on screen, in the designer and the message bar.
        QTRY_VERIFY(w.messages()->count() >= 1 ||
                    w.designer()->errorText().contains("nonscalar.yaml"));
        QVERIFY(w.isVisible());
    }

    void aFileThatIsNotATraceIsSaid() {
        workbench::MainWindow w;
        w.show();
        w.openTrace(COMMPROF_SOURCE_DIR "/README.md");
        QVERIFY(waitIdle(w.traceJobs()));
        QTRY_COMPARE(w.messages()->count(), 1);
        const QString m = w.messages()->shownMessages().first();
        QVERIFY2(m.contains("README.md") && m.contains("not valid JSON"), qPrintable(m));
        QVERIFY(w.currentTrace().isEmpty());
    }

    void aFolderThatIsNotAResultsFolderIsRefusedAndLeftAlone() {
        const QString dir = work_.filePath("papers");
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(writeFile(QDir(dir).filePath("draft.tex"), "\\documentclass{article}\n"));
        const QStringList before = contents(dir);
        workbench::MainWindow w;
        w.show();
        DialogAnswer answer(QMessageBox::Ok);
        w.openResults(dir);
        QVERIFY(answer.seen());
        QVERIFY2(answer.text().contains("not a results folder"), qPrintable(answer.text()));
        QTest::qWait(300);
        QCOMPARE(contents(dir), before); // no results.sqlite, nothing
        QVERIFY(w.resultsDir().isEmpty());

        DialogAnswer missing(QMessageBox::Ok);
        w.openResults(work_.filePath("does_not_exist"));
        QVERIFY(missing.seen());
        QVERIFY(missing.text().contains("does not exist"));
        QVERIFY(!QFileInfo::exists(work_.filePath("does_not_exist")));
    }

    void aTruncatedTraceIsShownAsDamaged() {
        const QByteArray whole =
            gunzip(COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz");
        QVERIFY(whole.size() > 1000000);
        const QString cut = work_.filePath("cut.json");
        QVERIFY(writeFile(cut, whole.left(whole.size() * 6 / 10)));
        workbench::MainWindow w;
        w.show();
        QSignalSpy shown(&w, &workbench::MainWindow::traceShown);
        w.openTrace(cut);
        QVERIFY(shown.wait(60000));
        QCOMPARE(w.messages()->count(), 1);
        const QString m = w.messages()->shownMessages().first();
        QVERIFY2(m.contains("damaged") && m.contains("input ends early"), qPrintable(m));
        QVERIFY(w.steps()->rowCount() > 0); // what was kept is still shown
    }

    void anExceptionEscapingASlotIsShownNotFatal() {
        auto* app = qobject_cast<workbench::Application*>(QCoreApplication::instance());
        QVERIFY(app);
        workbench::MainWindow w;
        w.show();
        app->setErrorSink([&w](const QString& e) { w.reportError("Unexpected error", e); });
        QTimer::singleShot(0, &w, [] { throw std::runtime_error("a slot gave up"); });
        QTRY_COMPARE(w.messages()->count(), 1);
        QVERIFY(w.messages()->shownMessages().first().contains("a slot gave up"));
        app->setErrorSink({});
    }
};

int main(int argc, char** argv) {
    workbench::Application app(argc, argv);
    QTEST_SET_MAIN_SOURCE_PATH
    TstGuiErrors test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_gui_errors.moc"
