// SPDX-License-Identifier: GPL-3.0-or-later
// The determinism view over two real fingerprinted runs, rendered offscreen.

#include "determinism/divergence.h"
#include "diff_view.h"
#include "image_checks.h"
#include "models/divergence_models.h"
#include "rank_files.h"
#include "runner/rank_pool.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

QString runArm(const QTemporaryDir& work, const QString& name, const QStringList& extra) {
    const QString dir = work.filePath(name);
    runner::PoolSpec spec;
    spec.program = rankBinary();
    spec.args = QStringList{"--params",      "1e5",        "--iterations", "5", "--warmup", "1",
                            "--threads",     "1",          "--batch-size", "4", "--out",    dir,
                            "--fingerprint", "semantic,op"} +
                extra;
    spec.worldSize = 2;
    spec.workDir = dir;
    spec.deadline = QDeadlineTimer(120000);
    runner::RankPool pool;
    return pool.runBlocking(spec).success ? dir : QString();
}

} // namespace

class TstGuiDiff : public QObject {
    Q_OBJECT
private slots:
    void viewShowsTheFirstDivergenceSideBySide() {
        QTemporaryDir work;
        const QString a = runArm(work, "a", {});
        const QString b = runArm(work, "b", {"--perturb", "aten::addmm@1:2"});
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        const determinism::LoadedRuns runs = determinism::loadRuns(a, b);
        QCOMPARE(runs.worldSize, 2);
        const determinism::DiffReport report = determinism::diff(runs);
        QCOMPARE(report.pattern, QString("input_distribution"));

        widgets::DiffView view;
        QAbstractItemModelTester t1(view.verdicts(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(view.sideBySide(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(view.discriminators(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setRuns(report, runs);
        QVERIFY(view.summaryText().contains("input_distribution"));
        QCOMPARE(view.verdicts()->rowCount(), 2);
        QCOMPARE(view.verdicts()->data(view.verdicts()->index(0, 1)).toString(), QString("origin"));
        const int focus = view.sideBySide()->focusRow();
        QVERIFY(focus >= 0);
        const auto* side = view.sideBySide();
        QCOMPARE(side->data(side->index(focus, models::SideBySideModel::Identity)).toString(),
                 QString("aten::addmm:0"));
        QVERIFY(side->data(side->index(focus, models::SideBySideModel::Status))
                    .toString()
                    .startsWith("FIRST DIVERGENCE"));
        QVERIFY(side->data(side->index(focus, models::SideBySideModel::DigestA)) !=
                side->data(side->index(focus, models::SideBySideModel::DigestB)));
        QVERIFY(view.discriminators()->rowCount() >= 1);
        view.selectRank(1); // the receiver
        QVERIFY(side->data(side->index(side->focusRow(), models::SideBySideModel::Identity))
                    .toString()
                    .startsWith("ddp::allreduce_bucket#"));

        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage shot = view.grab().toImage();
        QVERIFY(distinctColours(shot) > 10);

        // Issue 52: every header is whole ("st differing reco" at 1920 before), at both sizes.
        for (const QSize size : {QSize(1920, 1080), QSize(1366, 768)}) {
            view.resize(size);
            QTest::qWait(50);
            for (const QTableView* table : view.findChildren<QTableView*>()) {
                const QHeaderView* h = table->horizontalHeader();
                for (int c = 0; c < h->count(); ++c) {
                    const QString text = table->model()->headerData(c, Qt::Horizontal).toString();
                    const int need = h->fontMetrics().horizontalAdvance(text);
                    QVERIFY2(h->sectionSize(c) >= need,
                             qPrintable(QString("%1 at %2x%3: %4 px for %5 px of text")
                                            .arg(text)
                                            .arg(size.width())
                                            .arg(size.height())
                                            .arg(h->sectionSize(c))
                                            .arg(need)));
                }
            }
        }
    }
};

QTEST_MAIN(TstGuiDiff)
#include "tst_gui_diff.moc"
