// SPDX-License-Identifier: GPL-3.0-or-later
// File > Record a job... for real: the dialog runs `commprof record` on an unmodified two-rank
// Python DDP script in the background, its progress follows rank 0's steps, and when it ends the
// What if page shows the recorded job; Cancel ends the job and every rank it started.

#include "gui_helpers.h"
#include "main_window.h"
#include "python_ranks.h"
#include "record_dialog.h"
#include "runner/record_job.h"
#include "whatif_view.h"
#include "workspaces.h"

#include <QAction>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace commprof;

namespace {

// Processes whose command line names `needle` (the test's own copy of the script).
int processesNaming(const QString& needle) {
    int n = 0;
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        QFile f("/proc/" + pid + "/cmdline");
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle.toUtf8())) {
            ++n;
        }
    }
    return n;
}

widgets::RecordDialog* openDialog(workbench::MainWindow& w) {
    for (QAction* a : w.menuBar()->actions().first()->menu()->actions()) {
        if (a->text() == "Record a &job...") {
            a->trigger();
            return w.findChild<widgets::RecordDialog*>();
        }
    }
    return nullptr;
}

} // namespace

class TstGuiRecord : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString script_;

private slots:
    void initTestCase() {
        if (!python_ranks::hasTorch()) {
            QSKIP("/usr/bin/python3 has no torch (apt-get install python3-torch)");
        }
        isolateSettings();
        script_ = work_.filePath("train_gui.py");
        QVERIFY(QFile::copy(COMMPROF_SOURCE_DIR "/tests/data/record/train_ddp.py", script_));
        qputenv("COMMPROF_CLI", COMMPROF_BIN_DIR "/commprof");
    }

    void recordsAndOpensTheWhatIfPage() {
        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        widgets::RecordDialog* d = openDialog(w);
        QVERIFY(d);
        const QString out = work_.filePath("rec");
        d->commandField()->setText(python_ranks::kPython + " " + script_ +
                                   " --steps 10 --width 256");
        d->folderField()->setText(out);
        d->skipField()->setValue(3);
        d->stepsField()->setValue(4);
        d->nprocField()->setValue(2);
        QSignalSpy progress(d->job(), &runner::RecordJob::progress);
        QSignalSpy shown(w.whatIf(), &widgets::WhatIfView::shown);
        QTest::mouseClick(d->recordButton(), Qt::LeftButton);
        QVERIFY(!d->recordButton()->isEnabled());
        QVERIFY(shown.wait(300000));
        // The progress followed rank 0's steps up to the window's end (3 + 4).
        bool reachedEnd = false;
        for (const auto& args : progress) {
            reachedEnd = reachedEnd || (args[0].toInt() == 7 && args[1].toInt() == 7);
        }
        QVERIFY(reachedEnd);
        QCOMPARE(w.workspaces()->current(), QString("whatif"));
        QVERIFY(w.whatIf()->result().has_value());
        QCOMPARE(w.whatIf()->result()->worldSize, 2);
        QVERIFY(QFile::exists(out + "/params.json"));
    }

    void cancelEndsEveryRank() {
        workbench::MainWindow w;
        w.show();
        widgets::RecordDialog* d = openDialog(w);
        QVERIFY(d);
        d->commandField()->setText(python_ranks::kPython + " " + script_ + " --steps 100000");
        d->folderField()->setText(work_.filePath("cancelled"));
        d->nprocField()->setValue(2);
        QSignalSpy progress(d->job(), &runner::RecordJob::progress);
        QSignalSpy ended(d->job(), &runner::RecordJob::recorded);
        QTest::mouseClick(d->recordButton(), Qt::LeftButton);
        // Both ranks train (rank 0 reached step 2) before Cancel.
        QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last()[0].toInt() >= 2, 120000);
        QCOMPARE(processesNaming(script_), 3); // commprof record and its two ranks
        QTest::mouseClick(d->cancelButton(), Qt::LeftButton);
        QVERIFY(ended.wait(30000));
        QCOMPARE(ended.first()[0].toBool(), false);
        QTRY_COMPARE_WITH_TIMEOUT(processesNaming(script_), 0, 10000);
        QVERIFY(d->recordButton()->isEnabled());
    }
};

QTEST_MAIN(TstGuiRecord)
#include "tst_gui_record.moc"
