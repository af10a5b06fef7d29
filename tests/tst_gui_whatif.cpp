// SPDX-License-Identifier: GPL-3.0-or-later
// The What if page and the timeline's critical path on a DDP job's traces (the legacy export of
// Debian's torch 1.13: 2 ranks over gloo, 4 profiled steps, with its parameters file beside
// them as params.json), judged against the traces as Python's json module reads them: the
// recorded step is the median ProfilerStep# span of both ranks, and each step's path runs over
// the rank's own ProfilerStep# span. The model's predictions are judged by direction only: a
// slower link cannot make the step faster, a faster one cannot make it slower.

#include "analysis/recommendation.h"
#include "gui_helpers.h"
#include "main_window.h"
#include "results/hook_calibration.h"
#include "timeline_view.h"
#include "trace_inspector.h"
#include "whatif_view.h"
#include "workspaces.h"

#include <qcustomplot.h>

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>

#include <cmath>

using namespace commprof;

namespace {

const QString kFixtures = COMMPROF_SHARED_FIXTURES "/traces/";

// Qt's warnings of a widget painting on a device of no size, counted while installed (each is
// also passed on to the test's own handler).
int paintWarnings = 0;
QtMessageHandler nextHandler = nullptr;
void countPaintWarnings(QtMsgType type, const QMessageLogContext& context, const QString& text) {
    if (text.contains("QPainter::begin") || text.contains("returned inactive painter")) {
        ++paintWarnings;
    }
    nextHandler(type, context, text);
}

// Per trace, every ProfilerStep#N span (ts, ts + dur) by N, read by Python alone.
const char* kSpans = R"py(
import gzip, json, sys
out = {}
for path in sys.argv[1:]:
    with gzip.open(path) as f:
        data = json.load(f)
    events = data if isinstance(data, list) else data["traceEvents"]
    out[path] = {e["name"].split("#")[1]: [float(e["ts"]), float(e["ts"]) + float(e["dur"])]
                 for e in events
                 if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")}
print(json.dumps(out))
)py";

QJsonObject pythonSpans(const QStringList& traces) {
    const CliResult r = runProgram("/usr/bin/python3", QStringList{"-c", kSpans} + traces, 120000);
    return QJsonDocument::fromJson(r.out).object();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The error bar the figure draws at the bar ending at `stepMs` (its half-width), or -1.
double errorBarAt(QCustomPlot* plot, double stepMs) {
    for (int i = 0; i < plot->plottableCount(); ++i) {
        if (auto* e = qobject_cast<QCPErrorBars*>(plot->plottable(i))) {
            QCPPlottableInterface1D* d = e->dataPlottable()->interface1D();
            for (int k = 0; k < d->dataCount(); ++k) {
                if (std::abs(d->dataMainValue(k) - stepMs) <= 1e-9 * stepMs) {
                    return e->data()->at(k).errorPlus;
                }
            }
        }
    }
    return -1;
}

} // namespace

class TstGuiWhatIf : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString job_; // the two ranks' traces and params.json
    QStringList traces_;

    // Waits for the page to show a prediction after `change`.
    static bool shownAfter(workbench::MainWindow& w, const std::function<void()>& change) {
        QSignalSpy shown(w.whatIf(), &widgets::WhatIfView::shown);
        change();
        return shown.wait(120000);
    }

private slots:
    void initTestCase() {
        isolateSettings();
        job_ = work_.filePath("legacy_job");
        QVERIFY(QDir().mkpath(job_));
        for (const char* name :
             {"legacy_gloo_ddp_rank0.json.gz", "legacy_gloo_ddp_rank1.json.gz"}) {
            QVERIFY(QFile::copy(kFixtures + name, job_ + "/" + name));
            traces_ << job_ + "/" + name;
        }
        QVERIFY(
            QFile::copy(COMMPROF_TEST_DATA "/legacy_gloo_ddp_params.json", job_ + "/params.json"));
    }

    void pageReplaysTheJobAndFollowsTheControls() {
        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(shownAfter(w, [&] { w.openTrace(job_); }));
        widgets::WhatIfView* page = w.whatIf();
        QVERIFY(page->message().isEmpty());
        QVERIFY(page->findChild<QCustomPlot*>("whatIfPlot")->isVisibleTo(page));
        QVERIFY(page->result().has_value());

        // The recorded step: the median of both ranks' ProfilerStep# spans, by Python.
        const QJsonObject spans = pythonSpans(traces_);
        std::vector<double> steps;
        for (const QString& t : traces_) {
            const QJsonObject byStep = spans[t].toObject();
            QCOMPARE(byStep.size(), 4);
            for (const QJsonValue& s : byStep) {
                steps.push_back((s[1].toDouble() - s[0].toDouble()) / 1e3);
            }
        }
        const double recordedMs = median(steps);
        qInfo("recorded median step: Python %.4f ms, page %.4f ms", recordedMs,
              page->result()->stepMs);
        QVERIFY(std::abs(page->result()->stepMs - recordedMs) < 1e-6 * recordedMs);
        // Its parts, as the figure stacks them, sum to that step.
        QVERIFY(page->recorded().has_value());
        QVERIFY(std::abs(page->recorded()->stepMs() - recordedMs) < 1e-6 * recordedMs);
        QVERIFY(page->findChild<QLabel*>("whatIfNumbers")
                    ->text()
                    .contains(QString::number(recordedMs, 'f', 2)));
        QVERIFY(page->findChild<QLabel*>("whatIfRecommendation")
                    ->text()
                    .startsWith("Recommendation: "));
        // The whole job: no warning; and not made by `commprof record` (no capture/command.json),
        // so "Confirm on this job" is there but disabled, saying why.
        QVERIFY(page->warningsText().isEmpty());
        QVERIFY(page->findChild<QPushButton*>("whatIfConfirm")->isVisibleTo(page));
        QVERIFY(!page->findChild<QPushButton*>("whatIfConfirm")->isEnabled());
        QVERIFY2(
            page->findChild<QPushButton*>("whatIfConfirm")->toolTip().contains("commprof record") &&
                page->findChild<QPushButton*>("whatIfConfirm")
                    ->toolTip()
                    .contains("capture/command.json"),
            qPrintable(page->findChild<QPushButton*>("whatIfConfirm")->toolTip()));

        // What the model assumed, as `commprof trace whatif` notes it for the same job: folded
        // under the numbers, every note there once unfolded.
        const CliResult cli =
            runCli("commprof", QStringList{"trace", "whatif"} + traces_ +
                                   QStringList{"--params", job_ + "/params.json"});
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        QStringList cliNotes;
        for (const QString& line : QString::fromUtf8(cli.out).split('\n')) {
            if (line.startsWith("note: ")) {
                cliNotes << line.mid(6);
            }
        }
        QVERIFY(!cliNotes.isEmpty());
        auto* fold = page->findChild<QToolButton*>("whatIfNotesFold");
        auto* notes = page->findChild<QLabel*>("whatIfNotes");
        QVERIFY(fold && notes);
        QVERIFY(fold->isVisibleTo(page) && !notes->isVisibleTo(page));
        QCOMPARE(fold->text(), QString("Model notes (%1)").arg(cliNotes.size()));
        fold->click();
        QVERIFY(notes->isVisibleTo(page));
        for (const QString& n : cliNotes) {
            QVERIFY2(notes->text().contains(n), qPrintable(n));
        }

        // The controls start at the recording's settings (the params file says 0.25 MiB).
        QCOMPARE(page->findChild<QDoubleSpinBox*>("whatIfCap")->value(), 0.25);
        // Shown with the decimals the value has, as the CLI writes caps ("0.25", never "0.2500").
        QCOMPARE(page->findChild<QDoubleSpinBox*>("whatIfCap")->text(), QString("0.25 MiB"));
        QCOMPARE(page->findChild<QSpinBox*>("whatIfWorldSize")->value(), 2);
        QCOMPARE(page->findChild<QComboBox*>("whatIfHook")->currentText(), QString("allreduce"));
        QCOMPARE(page->chosen()->capMb, 0.25);
        const double base = page->chosen()->stepMs;

        // A quarter of the bandwidth: never faster, and here slower (communication is exposed).
        QVERIFY(shownAfter(
            w, [&] { page->findChild<QDoubleSpinBox*>("whatIfBandwidth")->setValue(0.25); }));
        QCOMPARE(page->chosen()->bandwidthX, 0.25);
        const double slow = page->chosen()->stepMs;
        qInfo("step at 1x %.3f ms, at 0.25x %.3f ms", base, slow);
        QVERIFY(slow > base);
        // Each bar's error bar is its own: the replay's the replay's interval, the scenario's
        // the scenario's (they differ here, so a swap shows).
        const analysis::WhatIf& shown = *page->result();
        QVERIFY(shown.replayed.uncertaintyMs != page->chosen()->uncertaintyMs);
        QCOMPARE(errorBarAt(page->findChild<QCustomPlot*>("whatIfPlot"), shown.replayed.stepMs),
                 shown.replayed.uncertaintyMs);
        QCOMPARE(errorBarAt(page->findChild<QCustomPlot*>("whatIfPlot"), slow),
                 page->chosen()->uncertaintyMs);
        QVERIFY(page->findChild<QLabel*>("whatIfNumbers")
                    ->text()
                    .contains(QString("%1 ms \u00b1 %2")
                                  .arg(shown.replayed.stepMs, 0, 'f', 2)
                                  .arg(shown.replayed.uncertaintyMs, 0, 'f', 2)));
        QVERIFY(page->findChild<QLabel*>("whatIfNumbers")
                    ->text()
                    .contains(QString::number(slow, 'f', 2)));
        // Four times the bandwidth: never slower than at 1x.
        QVERIFY(shownAfter(
            w, [&] { page->findChild<QDoubleSpinBox*>("whatIfBandwidth")->setValue(4); }));
        QVERIFY(page->chosen()->stepMs <= base);

        // Changes in a burst: the older predictions go stale, and only the last one's reaches
        // the page.
        QSignalSpy burst(page, &widgets::WhatIfView::shown);
        page->findChild<QDoubleSpinBox*>("whatIfBandwidth")->setValue(0.5);
        page->findChild<QSpinBox*>("whatIfWorldSize")->setValue(8);
        page->findChild<QDoubleSpinBox*>("whatIfCap")->setValue(4);
        QVERIFY(burst.wait(120000));
        QTest::qWait(500); // any stale prediction would land by now
        QCOMPARE(burst.count(), 1);
        QCOMPARE(page->chosen()->capMb, 4.0);
        QCOMPARE(page->chosen()->worldSize, 8);
        QCOMPARE(page->chosen()->bandwidthX, 0.5);
    }

    void criticalPathIsDrawnOnlyWhenToggled() {
        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(shownAfter(w, [&] { w.openTrace(job_); }));
        widgets::TimelineView* timeline = w.timeline();
        w.workspaces()->setCurrent("inspect");
        QTRY_VERIFY_WITH_TIMEOUT(!timeline->criticalPath().empty(), 60000);

        // Every step's path runs over the ProfilerStep# span of the rank it names, by Python.
        const QJsonObject spans = pythonSpans(traces_);
        QCOMPARE(int(timeline->criticalPath().size()), 4);
        for (const analysis::CriticalStep& c : timeline->criticalPath()) {
            QVERIFY(c.rank == 0 || c.rank == 1);
            const QJsonArray span = spans[traces_[c.rank]][QString::number(c.step)].toArray();
            QCOMPARE(span.size(), 2);
            QVERIFY(std::abs(c.startUs - span[0].toDouble()) < 1e-3);
            QVERIFY(std::abs(c.endUs - span[1].toDouble()) < 1e-3);
            QVERIFY(c.startUs < c.computeEndUs && c.computeEndUs <= c.backwardEndUs &&
                    c.backwardEndUs <= c.endUs);
            QVERIFY2(c.culprit.startsWith(QString("rank %1 ").arg(c.rank)), qPrintable(c.culprit));
            QVERIFY2(c.culprit.contains("bucket"), qPrintable(c.culprit));
        }

        const QColor path = widgets::TimelineView::criticalPathColour();
        QAction* toggle = w.traceInspector()->criticalPathAction();
        QVERIFY(w.viewMenu()->actions().contains(toggle));
        QCOMPARE(toggle->shortcut(), QKeySequence(Qt::Key_C));
        QVERIFY(toggle->isChecked()); // on by default for a job of several ranks (issue 52)
        timeline->setFocus();
        QTest::keyClick(timeline, Qt::Key_C);
        QVERIFY(!toggle->isChecked());
        QCOMPARE(pixelsOf(timeline->grab().toImage(), path), 0);
        QTest::keyClick(timeline, Qt::Key_C);
        QVERIFY(toggle->isChecked());
        QVERIFY(timeline->criticalPathShown());
        const int drawn = pixelsOf(timeline->grab().toImage(), path);
        qInfo("critical path: %d pixels", drawn);
        QVERIFY(drawn > 200);
        QTest::keyClick(timeline, Qt::Key_C);
        QVERIFY(!toggle->isChecked());
        QCOMPARE(pixelsOf(timeline->grab().toImage(), path), 0);
    }

    // The same job with rank 0's file cut at half its length (as tst_trace_job_inputs cuts it):
    // the page says above its numbers that the job is incomplete and why, as `trace whatif`
    // does, and the recommendation says it is of a part. Nothing paints on a device of no size:
    // the page, hidden behind another workspace, was laid out at a page's default 100x30, where
    // the warnings' lines left its figure 0 px tall (42 "QPainter::begin" lines from
    // `commprof-workbench --trace DIR --screenshot OUT`).
    void cutJobIsShownAsIncomplete() {
        paintWarnings = 0;
        nextHandler = qInstallMessageHandler(countPaintWarnings);
        const auto restore = qScopeGuard([] { qInstallMessageHandler(nextHandler); });
        const QString dir = work_.filePath("cut_job");
        QVERIFY(QDir().mkpath(dir));
        QFile whole(traces_[0]);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        QFile cut(dir + "/legacy_gloo_ddp_rank0.json.gz");
        QVERIFY(cut.open(QIODevice::WriteOnly));
        QCOMPARE(cut.write(bytes.left(bytes.size() / 2)), qint64(bytes.size() / 2));
        cut.close();
        QVERIFY(QFile::copy(traces_[1], dir + "/legacy_gloo_ddp_rank1.json.gz"));
        QVERIFY(QFile::copy(job_ + "/params.json", dir + "/params.json"));

        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(shownAfter(w, [&] { w.openTrace(dir); }));
        QVERIFY(w.workspaces()->current() != "whatif");
        w.grab(); // as --screenshot does first, the page hidden
        w.workspaces()->setCurrent("whatif");
        QCoreApplication::processEvents();
        QCOMPARE(paintWarnings, 0);
        widgets::WhatIfView* page = w.whatIf();
        const QString warnings = page->warningsText();
        QVERIFY2(warnings.contains("incomplete job") && warnings.contains("ends early") &&
                     warnings.contains("legacy_gloo_ddp_rank0") &&
                     warnings.contains("has 2 iterations where rank 1 has 4"),
                 qPrintable(warnings));
        auto* label = page->findChild<QLabel*>("whatIfWarnings");
        QVERIFY(label);
        QTRY_VERIFY(label->isVisible() && label->height() > 0);
        QVERIFY2(
            page->findChild<QLabel*>("whatIfRecommendation")->text().contains("incomplete job"),
            qPrintable(page->findChild<QLabel*>("whatIfRecommendation")->text()));
        // The same lines as the CLI prints before the job.
        const CliResult cli = runCli("commprof", {"trace", "whatif", dir});
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        for (const QString& line : QString::fromUtf8(cli.out).split('\n')) {
            if (line.startsWith("warning: ")) {
                QVERIFY2(warnings.contains(line), qPrintable(line));
            }
        }
    }

    // The job is replayed once: the cap, hook, bandwidth and world size then predict from that
    // replay (the page's count of replays stays at one), and each gives the scenario that
    // `commprof trace whatif` prints for the same settings in a process of its own, with the
    // same hook calibration (stored where the page finds it, given to the CLI by flag).
    void controlsPredictFromOneReplay() {
        const QString calibration = results::storedHookCalibrationPath();
        QVERIFY(QDir().mkpath(QFileInfo(calibration).path()));
        QFile::remove(calibration);
        QVERIFY(
            QFile::copy(COMMPROF_TEST_DATA "/whatif_corpus/hook-calibration.json", calibration));
        const auto removeCalibration = qScopeGuard([&] { QFile::remove(calibration); });

        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(shownAfter(w, [&] { w.openTrace(job_); }));
        widgets::WhatIfView* page = w.whatIf();
        QCOMPARE(page->replays(), 1);
        QVERIFY(shownAfter(w, [&] { page->findChild<QDoubleSpinBox*>("whatIfCap")->setValue(4); }));
        // 4 MiB on this link: the trace's collectives allow costs at which it is faster and
        // others at which it is slower, so the page says "no change", as the CLI's no_change.
        QVERIFY(page->chosen()->noChange);
        QVERIFY2(page->findChild<QLabel*>("whatIfNumbers")
                     ->text()
                     .contains(
                         QString("(no change: the trace cannot tell this setting from the recorded "
                                 "one; the model alone says %1 ms)")
                             .arg(page->chosen()->modelStepMs, 0, 'f', 2)),
                 qPrintable(page->findChild<QLabel*>("whatIfNumbers")->text()));
        QVERIFY(shownAfter(w, [&] {
            page->findChild<QComboBox*>("whatIfHook")->setCurrentText("fp16_compress");
        }));
        QVERIFY(shownAfter(
            w, [&] { page->findChild<QDoubleSpinBox*>("whatIfBandwidth")->setValue(0.5); }));
        QVERIFY(shownAfter(w, [&] { page->findChild<QSpinBox*>("whatIfWorldSize")->setValue(4); }));
        QCOMPARE(page->replays(), 1);
        const analysis::Scenario* s = page->chosen();
        QVERIFY(s);
        QCOMPARE(s->capMb, 4.0);
        QCOMPARE(s->hook, QString("fp16_compress"));

        QStringList caps;
        for (const double c : analysis::kStandardCapsMb) {
            caps << QString::number(c);
        }
        const CliResult cli =
            runCli("commprof", QStringList{"trace", "whatif"} + traces_ +
                                   QStringList{"--params", job_ + "/params.json", "--bucket-cap-mb",
                                               caps.join(',') + ",4", "--hook", "fp16_compress",
                                               "--bandwidth-x", "0.5", "--world-size", "4",
                                               "--hook-calibration", calibration, "--json"});
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(cli.out).object();
        QJsonObject scenario;
        for (const QJsonValue v : o["scenarios"].toArray()) {
            if (v["bucket_cap_mb"].toDouble() == 4 && v["hook"].toString() == "fp16_compress") {
                scenario = v.toObject();
            }
        }
        QVERIFY2(!scenario.isEmpty(), cli.out.constData());
        const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
        qInfo("4 MiB fp16_compress at 0.5x, 4 ranks: page %.4f +- %.4f ms, CLI %.4f +- %.4f ms",
              s->stepMs, s->uncertaintyMs, scenario["step_ms"].toDouble(),
              scenario["uncertainty_ms"].toDouble());
        QVERIFY(same(s->stepMs, scenario["step_ms"].toDouble()));
        QVERIFY(same(s->uncertaintyMs, scenario["uncertainty_ms"].toDouble()));
        QVERIFY(same(s->exposedMs, scenario["exposed_comm_ms"].toDouble()));
        QVERIFY(same(s->modelStepMs, scenario["model_step_ms"].toDouble()));
        QCOMPARE(s->buckets, scenario["buckets"].toInt());
        QCOMPARE(s->noChange, scenario["no_change"].toBool());
        QCOMPARE(page->result()->scenarios.size(), std::size_t(o["scenarios"].toArray().size()));
        QCOMPARE(page->findChild<QLabel*>("whatIfRecommendation")->text(),
                 "Recommendation: " + o["recommendation"]["reason"].toString());

        // The inputs line names where each input came from, as the CLI's "inputs" does: the
        // hook's work from the calibration file, the replay's own error on the recording.
        const QString numbers = page->findChild<QLabel*>("whatIfNumbers")->text();
        QVERIFY2(numbers.contains("collective cost from the trace") &&
                     numbers.contains("fp16_compress's own work from " + calibration) &&
                     numbers.contains(
                         QString("the replay %1 % off the recorded step")
                             .arg(o["recorded"]["replay_error"].toDouble() * 100, 0, 'f', 1)),
                 qPrintable(numbers));
        QCOMPARE(o["inputs"]["collective_cost"].toString(), QString("trace"));
        QCOMPARE(o["inputs"]["hook_work"]["fp16_compress"].toString(), calibration);
    }

    // Traces that are no DDP job, or lack what the model needs: the page says why, with no plot.
    void pageSaysWhyThereIsNothingToReplay() {
        workbench::MainWindow w;
        w.show();
        QSignalSpy read(w.traceInspector(), &widgets::TraceInspector::ddpJobMissing);
        w.openTrace(kFixtures + "kineto_rocm_minitoy.json.gz");
        QVERIFY(read.wait(60000));
        QTRY_VERIFY(!w.whatIf()->message().isEmpty());
        QVERIFY2(w.whatIf()->message().startsWith("Nothing to replay"),
                 qPrintable(w.whatIf()->message()));
        QVERIFY(w.whatIf()->message().contains("kineto_rocm_minitoy"));
        QVERIFY(!w.whatIf()->findChild<QCustomPlot*>("whatIfPlot")->isVisibleTo(w.whatIf()));
        QVERIFY(!w.whatIf()->findChild<QDoubleSpinBox*>("whatIfCap")->isEnabled());

        // One legacy rank alone, no parameters beside it: its collectives have no sizes.
        w.openTrace(kFixtures + "legacy_gloo_ddp_rank0.json.gz");
        QTRY_VERIFY_WITH_TIMEOUT(w.whatIf()->message().contains("params"), 60000);
        QVERIFY(!w.whatIf()->findChild<QCustomPlot*>("whatIfPlot")->isVisibleTo(w.whatIf()));
        // Given the parameters file, the same trace replays.
        QSignalSpy shown(w.whatIf(), &widgets::WhatIfView::shown);
        emit w.whatIf()->paramsFileChosen(COMMPROF_TEST_DATA "/legacy_gloo_ddp_params.json");
        QVERIFY(shown.wait(60000));
        QVERIFY(w.whatIf()->message().isEmpty());
        QVERIFY(w.whatIf()->findChild<QCustomPlot*>("whatIfPlot")->isVisibleTo(w.whatIf()));
    }
};

QTEST_MAIN(TstGuiWhatIf)
#include "tst_gui_whatif.moc"
