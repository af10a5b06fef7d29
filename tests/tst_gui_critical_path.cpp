// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's critical path on a DDP job's traces (the legacy export of Debian's torch 1.13:
// 2 ranks over gloo, 4 profiled steps, its parameters file beside them), issue 52: on by default
// for a job of several ranks and remembered once the user chose; the job's culprits above the
// timeline in `commprof trace ddp`'s own words (the CLI is the independent source); a step's
// details on hovering and clicking it; the slices on the path outlined.

#include "cli_runner.h"
#include "gui_helpers.h"
#include "slice_details_panel.h"
#include "timeline_view.h"
#include "trace_inspector.h"

#include <QAction>
#include <QHelpEvent>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QToolTip>

using namespace commprof;

namespace {

// The rows TOP..BOTTOM right of the timeline's gutter, where the lanes are drawn.
QRect lanes(int top, int bottom) {
    return QRect(QPoint(widgets::TimelineView::kGutter, std::max(0, top)),
                 QPoint(1 << 20, bottom - 1));
}

const QString kFixtures = COMMPROF_SHARED_FIXTURES "/traces/";
constexpr const char* kKey = "timeline/criticalPath";

} // namespace

class TstGuiCriticalPath : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString job_; // the two ranks' traces and params.json

    // An inspector at 1366x768 showing FILES (or the job), its DDP job read.
    static bool showJob(widgets::TraceInspector& ins, const QString& dir, const QString& file) {
        ins.resize(1366, 768);
        ins.show();
        if (!QTest::qWaitForWindowExposed(&ins)) {
            return false;
        }
        QSignalSpy read(&ins, &widgets::TraceInspector::ddpJobRead);
        QSignalSpy missing(&ins, &widgets::TraceInspector::ddpJobMissing);
        if (file.isEmpty()) {
            ins.openFolder(dir);
        } else {
            ins.openTrace(file);
        }
        QDeadlineTimer deadline(120000);
        while (read.isEmpty() && missing.isEmpty() && !deadline.hasExpired()) {
            QTest::qWait(50);
        }
        QTest::qWait(50);
        return !read.isEmpty() || !missing.isEmpty();
    }

    // The layout row of rank index R's header.
    static std::size_t headerRow(const widgets::TimelineView* t, int r) {
        const auto& rows = t->layout().rows();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].kind == timeline::RowKind::Rank && rows[i].rank == r) {
                return i;
            }
        }
        return rows.size();
    }

private slots:
    void initTestCase() {
        isolateSettings();
        job_ = work_.filePath("legacy_job");
        QVERIFY(QDir().mkpath(job_));
        for (const char* name :
             {"legacy_gloo_ddp_rank0.json.gz", "legacy_gloo_ddp_rank1.json.gz"}) {
            QVERIFY(QFile::copy(kFixtures + name, job_ + "/" + name));
        }
        QVERIFY(
            QFile::copy(COMMPROF_TEST_DATA "/legacy_gloo_ddp_params.json", job_ + "/params.json"));
    }

    void init() { QSettings("commprof", "workbench").remove(kKey); }

    // Off was the default, and the toggle was forgotten with the window.
    void onForSeveralRanksUntilTheUserChooses() {
        {
            widgets::TraceInspector job;
            QVERIFY(showJob(job, job_, {}));
            QVERIFY(job.criticalPathAction()->isChecked());
            QVERIFY(job.timeline()->criticalPathShown());
        }
        {
            widgets::TraceInspector one;
            QVERIFY(showJob(one, {}, job_ + "/legacy_gloo_ddp_rank0.json.gz"));
            QVERIFY(!one.criticalPathAction()->isChecked()); // one rank: its own path only
            one.criticalPathAction()->trigger();             // the user turns it on
            QVERIFY(one.timeline()->criticalPathShown());
        }
        QCOMPARE(QSettings("commprof", "workbench").value(kKey).toBool(), true);
        {
            widgets::TraceInspector again;
            QVERIFY(showJob(again, {}, job_ + "/legacy_gloo_ddp_rank0.json.gz"));
            QVERIFY(again.criticalPathAction()->isChecked()); // remembered
            again.criticalPathAction()->trigger();            // and off
        }
        widgets::TraceInspector job;
        QVERIFY(showJob(job, job_, {}));
        QVERIFY(!job.criticalPathAction()->isChecked()); // the user's off wins over the default
    }

    // The job-level summary is `trace ddp`'s: its first rank culprit and first gradient
    // culprit, word for word.
    void culpritsAreTraceDdps() {
        const CliResult cli = runCli("commprof", {"trace", "ddp", job_}, 120000);
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        QStringList ranks, gradients;
        for (const QString& line : QString::fromUtf8(cli.out).split('\n')) {
            if (line.startsWith("culprit: rank ")) {
                ranks << line.mid(9);
            } else if (line.startsWith("culprit: gradient ")) {
                gradients << line.mid(9);
            }
        }
        QVERIFY2(!ranks.isEmpty(), cli.out.constData());
        widgets::TraceInspector ins;
        QVERIFY(showJob(ins, job_, {}));
        QStringList first{ranks.first()};
        if (!gradients.isEmpty()) {
            first << gradients.first();
        }
        QCOMPARE(ins.findChild<QLabel*>("culprits")->text(), "Critical path: " + first.join("; "));
        QVERIFY(ins.findChild<QLabel*>("culprits")->isVisible());
        ins.criticalPathAction()->trigger(); // off: the summary goes with the path
        QVERIFY(!ins.findChild<QLabel*>("culprits")->isVisible());
    }

    // Rank 0's trace cut in half holds 2 of the 4 steps: the later two are rank 1's alone, not a
    // rank found last (the audit of issue 52 saw "step 3: rank 1 last" over them). With both
    // ranks whole, every step is timed.
    void aStepOneRankAloneHasIsNotJudged() {
        const QString cut = work_.filePath("cut_job");
        QVERIFY(QDir().mkpath(cut));
        QFile whole(job_ + "/legacy_gloo_ddp_rank0.json.gz");
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        QFile half(cut + "/legacy_gloo_ddp_rank0.json.gz");
        QVERIFY(half.open(QIODevice::WriteOnly));
        half.write(bytes.left(bytes.size() / 2));
        half.close();
        QVERIFY(QFile::copy(job_ + "/legacy_gloo_ddp_rank1.json.gz",
                            cut + "/legacy_gloo_ddp_rank1.json.gz"));
        QVERIFY(QFile::copy(job_ + "/params.json", cut + "/params.json"));
        for (const bool isCut : {false, true}) {
            widgets::TraceInspector ins;
            QVERIFY(showJob(ins, isCut ? cut : job_, {}));
            widgets::TimelineView* t = ins.timeline();
            QTRY_VERIFY_WITH_TIMEOUT(!t->criticalPath().empty(), 60000);
            QStringList seen;
            for (const analysis::CriticalStep& c : t->criticalPath()) {
                seen << QString("%1:%2").arg(c.rank).arg(c.alone ? "alone" : "with others");
            }
            QCOMPARE(seen.size(), 4);
            const QStringList alone = seen.filter("alone");
            const QStringList want = isCut ? QStringList{"1:alone", "1:alone"} : QStringList{};
            QCOMPARE(alone, want);
        }
    }

    // Hovering a step of the path shows its details as a slice's tooltip does; clicking it
    // puts them in the details panel.
    void hoveringAndClickingAStepShowIt() {
        widgets::TraceInspector ins;
        QVERIFY(showJob(ins, job_, {}));
        widgets::TimelineView* t = ins.timeline();
        QTRY_VERIFY_WITH_TIMEOUT(!t->criticalPath().empty(), 60000);
        t->fitAll();
        const analysis::CriticalStep& c = t->criticalPath()[1];
        int index = -1;
        for (std::size_t r = 0; r < t->stack()->ranks.size(); ++r) {
            index = t->stack()->ranks[r]->rank == c.rank ? int(r) : index;
        }
        QVERIFY(index >= 0);
        const double mid = t->stack()->toDisplay(std::size_t(index), (c.startUs + c.endUs) / 2);
        const auto at = t->pointOfRow(headerRow(t, index), mid);
        QVERIFY(at.has_value());
        QCOMPARE(t->criticalStepAt(*at), std::optional<std::size_t>(1));

        QHelpEvent help(QEvent::ToolTip, *at, t->mapToGlobal(*at));
        QApplication::sendEvent(t, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QString("step %1").arg(c.step)) &&
                     QToolTip::text().contains(c.culprit),
                 qPrintable(QToolTip::text()));

        QSignalSpy clicked(t, &widgets::TimelineView::criticalStepClicked);
        QTest::mouseClick(t, Qt::LeftButton, {}, *at);
        QCOMPARE(clicked.count(), 1);
        QVERIFY(ins.details()->showsCriticalStep());
        const QString text = ins.details()->findChild<QTextBrowser*>("sliceDetails")->toPlainText();
        QVERIFY2(text.contains(QString("Critical path, step %1").arg(c.step)) &&
                     text.contains(c.culprit),
                 qPrintable(text));
        // Off, nothing is there to hover or click.
        ins.criticalPathAction()->trigger();
        QVERIFY(!t->criticalStepAt(*at).has_value());
    }

    // The slices on the path are outlined in its colour: below the header rows, the colour is
    // there only while the path is shown.
    void slicesOnThePathAreOutlined() {
        widgets::TraceInspector ins;
        QVERIFY(showJob(ins, job_, {}));
        widgets::TimelineView* t = ins.timeline();
        QTRY_VERIFY_WITH_TIMEOUT(!t->criticalPath().empty(), 60000);
        t->fitAll();
        // The slice rows of the first rank the path runs on, under its header.
        int index = -1;
        for (std::size_t r = 0; r < t->stack()->ranks.size(); ++r) {
            index = t->stack()->ranks[r]->rank == t->criticalPath().front().rank ? int(r) : index;
        }
        const auto& rows = t->layout().rows();
        std::size_t first = headerRow(t, index) + 1;
        while (first < rows.size() && rows[first].kind != timeline::RowKind::Slices) {
            ++first;
        }
        QVERIFY(first < rows.size() && rows[first].rank == index);
        const int top = t->rowsTop() + rows[first].top - t->scrollY();
        const int bottom = top + rows[first].height;
        const QColor path = widgets::TimelineView::criticalPathColour();
        QVERIFY(t->criticalPathShown());
        const int shown = pixelsOf(t->grab().toImage(), path, lanes(top, bottom));
        qInfo("outlined: %d pixels in the row at y %d..%d", shown, top, bottom);
        QVERIFY(shown > 20);
        ins.criticalPathAction()->trigger();
        QCOMPARE(pixelsOf(t->grab().toImage(), path, lanes(top, bottom)), 0);
    }
};

QTEST_MAIN(TstGuiCriticalPath)
#include "tst_gui_critical_path.moc"
