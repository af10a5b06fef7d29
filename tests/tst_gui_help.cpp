// SPDX-License-Identifier: GPL-3.0-or-later
// Help and the window's furniture: About names the versions of commprof (as the project file
// says), of libtorch (as commprof-rank says) and of Qt; Documentation finds the docs folder;
// the window has its icon; a background job shows in the status bar and Cancel drops it.

#include "about_dialog.h"
#include "gui_helpers.h"
#include "job_status.h"
#include "jobs/job_tracker.h"
#include "main_window.h"
#include "message_bar.h"
#include "models/results_cell_model.h"
#include "results_view.h"

#include <QDir>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace commprof;

class TstGuiHelp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void aboutNamesTheVersions() {
        QFile project(COMMPROF_SOURCE_DIR "/CMakeLists.txt");
        QVERIFY(project.open(QIODevice::ReadOnly));
        const QString version = QRegularExpression(R"(project\(commprof VERSION ([0-9.]+))")
                                    .match(QString::fromUtf8(project.readAll()))
                                    .captured(1);
        QVERIFY(!version.isEmpty());
        const CliResult rank = runCli("commprof-rank", {"--version", "--json"});
        QCOMPARE(rank.exitCode, 0);
        const QString torch = rank.json()["torch_version"].toString();
        QVERIFY(!torch.isEmpty());

        workbench::AboutDialog about;
        QSignalSpy known(&about, &workbench::AboutDialog::rankVersionKnown);
        QVERIFY(known.wait(30000));
        const QString text = about.versionsText();
        QVERIFY2(text.contains("commprof " + version), qPrintable(text));
        QVERIFY2(text.contains("libtorch " + torch), qPrintable(text));
        QVERIFY2(text.contains(QString("Qt ") + qVersion()), qPrintable(text));
    }

    void documentationAndIcon() {
        const QString docs = workbench::MainWindow::documentationPath();
        QVERIFY(QFile::exists(docs + "/cli.md"));
        workbench::MainWindow w;
        QVERIFY(!w.windowIcon().isNull());
        QVERIFY(!w.windowIcon().pixmap(48, 48).toImage().isNull());
    }

    // Issue 40: without a program to show the documentation (xdg-open exiting 3, as it does
    // with no browser), F1 says so and where the documentation is, instead of nothing.
    void documentationWithoutABrowserIsSaid() {
        QTemporaryDir bin;
        QVERIFY(writeFile(bin.filePath("xdg-open"), "#!/bin/sh\nexit 3\n"));
        QVERIFY(QFile::setPermissions(bin.filePath("xdg-open"),
                                      QFile::ReadOwner | QFile::ExeOwner | QFile::WriteOwner));
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", bin.path().toUtf8() + ":" + path);
        workbench::MainWindow w;
        w.openDocumentation();
        QTRY_COMPARE_WITH_TIMEOUT(w.messages()->count(), 1, 10000);
        qputenv("PATH", path);
        const QString m = w.messages()->shownMessages().first();
        QVERIFY2(
            m.contains("could not be opened") &&
                m.contains(QDir::toNativeSeparators(workbench::MainWindow::documentationPath())),
            qPrintable(m));
    }

    void aJobShowsInTheStatusBarAndCancelDropsIt() {
        SmokeRun smoke;
        const QString error = smoke.make();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString run = smoke.dir;
        workbench::MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openResults(run);
        QVERIFY(w.resultsJobs()->running());
        QVERIFY2(w.jobStatus()->text().startsWith("Opening results smoke"),
                 qPrintable(w.jobStatus()->text()));
        auto* cancel = w.jobStatus()->findChild<QToolButton*>();
        QVERIFY(cancel);
        cancel->click();
        QVERIFY(!w.resultsJobs()->running());
        QTest::qWait(3000); // the ingest finishes in the background; its result is dropped
        QCOMPARE(w.results()->model()->rowCount(), 0);
        QVERIFY(w.resultsDir().isEmpty());
        QVERIFY(w.jobStatus()->text().isEmpty());
    }
};

QTEST_MAIN(TstGuiHelp)
#include "tst_gui_help.moc"
