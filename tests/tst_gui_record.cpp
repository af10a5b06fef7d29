// SPDX-License-Identifier: GPL-3.0-or-later
// File > Record a job... for real: the dialog runs `commprof record` on an unmodified two-rank
// Python DDP script in the background, its progress follows rank 0's steps, and when it ends the
// What if page shows the recorded job; Cancel ends the job and every rank it started.

#include "confirm_controller.h"
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

        // "Confirm on this job": offered on the record folder. A cap other than the recorded
        // one on the controls gives it a setting to confirm even where the recommendation keeps.
        widgets::WhatIfView* page = w.whatIf();
        QVERIFY(page->findChild<QPushButton*>("whatIfConfirm")->isVisibleTo(page));
        QSignalSpy reshown(page, &widgets::WhatIfView::shown);
        page->findChild<QDoubleSpinBox*>("whatIfCap")
            ->setValue(page->findChild<QDoubleSpinBox*>("whatIfCap")->value() * 4);
        QVERIFY(reshown.wait(120000));
        QVERIFY2(page->findChild<QPushButton*>("whatIfConfirm")->isEnabled(),
                 qPrintable(page->findChild<QPushButton*>("whatIfConfirm")->toolTip()));
        const std::optional<analysis::Setting> candidate = page->confirmCandidate();
        QVERIFY(candidate);
        w.confirmController()->setRounds(2); // confirm's fewest
        std::optional<analysis::Confirmation> result;
        bool ended = false, ok = false;
        QString message;
        connect(
            w.confirmController()->job(), &runner::RecordJob::confirmed, this,
            [&](bool good, int, const std::optional<analysis::Confirmation>& c, const QString& m) {
                ended = true;
                ok = good;
                result = c;
                message = m;
            });
        QTest::mouseClick(page->findChild<QPushButton*>("whatIfConfirm"), Qt::LeftButton);
        // Running: the button is disabled, saying why, and Cancel is offered.
        QVERIFY(w.confirmController()->job()->running());
        QVERIFY(!page->findChild<QPushButton*>("whatIfConfirm")->isEnabled());
        QVERIFY(page->findChild<QPushButton*>("whatIfConfirm")
                    ->toolTip()
                    .contains("confirmation runs"));
        QVERIFY(page->findChild<QPushButton*>("whatIfConfirmCancel")->isVisibleTo(page));
        QTRY_VERIFY_WITH_TIMEOUT(ended, 300000);
        QVERIFY2(ok && result, qPrintable(message + "\n" + w.confirmController()->job()->output()));
        QCOMPARE(result->candidate.bucketCapMb, candidate->bucketCapMb);
        QCOMPARE(result->candidate.hook, candidate->hook);
        QCOMPARE(int(result->aMs.size()), 2);
        QCOMPARE(int(result->bMs.size()), 2);
        // The measured difference shown is the mean of the paired runs' differences, by hand.
        const double mean =
            ((result->bMs[0] - result->aMs[0]) + (result->bMs[1] - result->aMs[1])) / 2;
        const QString shownText = page->confirmationText();
        qInfo("%s", qPrintable(shownText));
        QVERIFY2(shownText.contains("measured: B - A = " + QString::number(mean, 'f', 2) + " ms"),
                 qPrintable(shownText));
        QVERIFY(shownText.contains("predicted by trace whatif") ||
                shownText.contains("predicted: none"));
        if (result->predictionHeld()) {
            QVERIFY(shownText.contains(*result->predictionHeld() ? "the prediction held"
                                                                 : "the prediction did not hold"));
        }
        QVERIFY(page->findChild<QPushButton*>("whatIfConfirm")->isEnabled());
        QVERIFY(!page->findChild<QPushButton*>("whatIfConfirmCancel")->isVisibleTo(page));

        // Again, cancelled once its first run's ranks train: the job and every rank it started
        // end, the page says so and offers the button again.
        ended = false;
        QTest::mouseClick(page->findChild<QPushButton*>("whatIfConfirm"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(processesNaming(script_) >= 3, 60000); // confirm, two ranks
        QTest::mouseClick(page->findChild<QPushButton*>("whatIfConfirmCancel"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(ended, 30000);
        QVERIFY(!ok);
        QCOMPARE(page->confirmationText(), QString("The confirmation was cancelled"));
        QTRY_COMPARE_WITH_TIMEOUT(processesNaming(script_), 0, 10000);
        QVERIFY(page->findChild<QPushButton*>("whatIfConfirm")->isEnabled());
        QVERIFY(!page->findChild<QPushButton*>("whatIfConfirmCancel")->isVisibleTo(page));
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
