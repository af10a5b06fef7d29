// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's model without a window: the ruler's ticks and units, call-stack depth, lane
// names and order, flow partners, range figures, the range summed by name, the overview's
// bins, search counts, cross-rank matching, the vertical layout (pinned lanes too) and the
// slice colours. Each is checked against a hand calculation or an
// independent reading of the same file with Qt's own JSON parser.

#include "cli_runner.h"
#include "gzip_files.h"
#include "step_figures.h"
#include "timeline/overview.h"
#include "timeline/palette.h"
#include "timeline/range_aggregate.h"
#include "timeline/rank_matching.h"
#include "timeline/ruler.h"
#include "timeline/slice_details.h"
#include "timeline/slice_search.h"
#include "timeline/stack_loader.h"
#include "timeline/timeline_layout.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace commprof;

namespace {

const QString kNccl = COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz";

trace::Trace parse(const TraceBuilder& b, const char* name = "hand-written") {
    return trace::parseTraceText(b.object().toStdString(), name);
}

std::shared_ptr<const timeline::RankTimeline> rankOf(trace::Trace t, int rank = 0) {
    return std::make_shared<const timeline::RankTimeline>(
        timeline::buildRankTimeline(std::move(t), rank, QString("trace_rank%1.json").arg(rank)));
}

// The row (depth) each named slice landed on, by name.
std::map<QString, int> depthsByName(const timeline::RankTimeline& r) {
    std::map<QString, int> out;
    for (std::uint32_t e = 0; e < r.trace.events.size(); ++e) {
        out[QString::fromStdString(r.trace.name(r.trace.events[e]))] = int(r.places[e].depth);
    }
    return out;
}

// A label as the ruler writes it ("+1.5 ms", "0.2 µs", "5.000 000 1 s"), in microseconds.
double parseLabel(QString label) {
    label.remove('+').remove(' ');
    static const QRegularExpression re("^(-?[0-9.]+)(ns|µs|ms|s)$");
    const auto m = re.match(label);
    if (!m.hasMatch()) {
        return std::nan("");
    }
    const QString unit = m.captured(2);
    const double scale = unit == "ns" ? 1e-3 : unit == "µs" ? 1.0 : unit == "ms" ? 1e3 : 1e6;
    return m.captured(1).toDouble() * scale;
}

} // namespace

class TstTimelineModel : public QObject {
    Q_OBJECT
private slots:
    void rulerTicksAndUnits_data() {
        QTest::addColumn<double>("usPerPixel");
        QTest::addColumn<int>("spacing");
        QTest::addColumn<double>("expectedStepUs");
        QTest::addColumn<QString>("expectedUnit");
        // Worked by hand: the smallest 1, 2 or 5 x 10^k ns at least spacing x usPerPixel, in
        // the largest unit of which the step is at least a tenth.
        QTest::newRow("1 ns/px, 50 px") << 1e-3 << 50 << 0.05 << "ns";
        QTest::newRow("1 ns/px, 80 px") << 1e-3 << 80 << 0.1 << "µs";
        QTest::newRow("3 ns/px") << 3e-3 << 80 << 0.5 << "µs";
        QTest::newRow("10 ns/px") << 1e-2 << 80 << 1.0 << "µs";
        QTest::newRow("100 ns/px") << 0.1 << 80 << 10.0 << "µs";
        QTest::newRow("1 µs/px") << 1.0 << 80 << 100.0 << "ms";
        QTest::newRow("2.2 µs/px") << 2.2 << 80 << 200.0 << "ms";
        QTest::newRow("10 µs/px") << 10.0 << 80 << 1e3 << "ms";
        QTest::newRow("100 µs/px") << 100.0 << 80 << 1e4 << "ms";
        QTest::newRow("1 ms/px") << 1e3 << 80 << 1e5 << "s";
        QTest::newRow("10 ms/px") << 1e4 << 80 << 1e6 << "s";
        QTest::newRow("100 ms/px") << 1e5 << 80 << 1e7 << "s";
        QTest::newRow("1 s/px") << 1e6 << 80 << 1e8 << "s";
        QTest::newRow("10 s/px") << 1e7 << 80 << 1e9 << "s";
        QTest::newRow("100 s/px") << 1e8 << 80 << 1e10 << "s";
    }

    void rulerTicksAndUnits() {
        QFETCH(double, usPerPixel);
        QFETCH(int, spacing);
        QFETCH(double, expectedStepUs);
        QFETCH(QString, expectedUnit);
        const int width = 1000;
        // Near the origin and far from it (where one base label and "+Δ" ticks take over).
        for (const double at : {0.0, 3.7e6}) {
            const double start = at + 0.37 * usPerPixel * width;
            const timeline::TimeAxis axis(start, start + usPerPixel * width, width);
            const timeline::Ruler r = timeline::makeRuler(axis, 0.0, spacing);
            QVERIFY2(std::abs(r.stepUs / expectedStepUs - 1) < 1e-9,
                     qPrintable(QString("step %1 µs").arg(r.stepUs)));
            QCOMPARE(QString(timeline::unitSuffix(r.unit)), expectedUnit);
            const double stepPx = r.stepUs / usPerPixel;
            QVERIFY(stepPx >= spacing && stepPx < 2.5 * spacing);
            int majors = 0;
            double previous = -1e300;
            for (const auto& t : r.ticks) {
                QVERIFY(t.us >= axis.startUs() - 1e-9 * std::abs(axis.startUs()) - 1e-12);
                QVERIFY(t.us <= axis.endUs() + 1e-9 * std::abs(axis.endUs()) + 1e-12);
                QVERIFY(t.us > previous);
                previous = t.us;
                if (!t.major) {
                    QVERIFY(t.label.isEmpty());
                    continue;
                }
                ++majors;
                QVERIFY2(t.label.endsWith(" " + expectedUnit), qPrintable(t.label));
                // The label, read back (plus the base when there is one), is the tick's time.
                const double value = parseLabel(t.label) + (r.hasBase ? r.baseUs : 0.0);
                QVERIFY2(std::abs(value - t.us) <= 1e-6 * r.stepUs,
                         qPrintable(QString("%1 at %2 µs").arg(t.label).arg(t.us, 0, 'f', 6)));
            }
            QVERIFY(std::abs(majors - width / stepPx) <= 1.0);
            if (r.hasBase) {
                QCOMPARE(parseLabel(r.baseLabel), r.baseUs);
                QVERIFY(r.ticks.front().major || r.ticks.size() > 1);
            }
            // A base exactly when a plain label would need five digits before the point.
            QCOMPARE(r.hasBase, axis.endUs() / timeline::unitInUs(r.unit) >= 1e4);
        }
    }

    void rulerBaseLabelIsReadable() {
        // 1 ns per pixel, 5 s into a trace: "5.000 000 0 s" once, then "+0.1 µs" steps.
        const timeline::TimeAxis axis(5e6, 5e6 + 1.0, 1000);
        const timeline::Ruler r = timeline::makeRuler(axis, 0.0, 80);
        QVERIFY(r.hasBase);
        QCOMPARE(r.baseLabel, QString("5.000 000 0 s"));
        QCOMPARE(r.ticks.front().label, QString("+0.0 µs"));
        QCOMPARE(r.ticks[5].label, QString("+0.1 µs"));
        // Relative to a step that started 4.9 s in, labels would still read 100 000 µs.
        const timeline::Ruler fromStep = timeline::makeRuler(axis, 4.9e6 + 0.5, 80);
        QVERIFY(fromStep.hasBase);
        const timeline::Ruler near = timeline::makeRuler(axis, 5e6 - 2.0, 80);
        QVERIFY(!near.hasBase);
        QCOMPARE(near.ticks.front().label, QString("2.0 µs"));
    }

    void durationsAreWrittenInTheirUnit() {
        QCOMPARE(timeline::formatDuration(0), QString("0 ns"));
        QCOMPARE(timeline::formatDuration(0.5), QString("500 ns"));
        QCOMPARE(timeline::formatDuration(0.0042), QString("4.2 ns"));
        QCOMPARE(timeline::formatDuration(1.2534), QString("1.253 µs"));
        QCOMPARE(timeline::formatDuration(999.96), QString("1.000 ms"));
        QCOMPARE(timeline::formatDuration(12.5e6), QString("12.50 s"));
        QCOMPARE(timeline::formatDuration(-3), QString("-3.000 µs"));
        QCOMPARE(timeline::formatInUnit(5e6 + 0.1, timeline::TimeUnit::S, 7),
                 QString("5.000 000 1 s"));
    }

    void depthOfNestedSlices() {
        TraceBuilder b;
        b.complete("A", 0, 100)
            .complete("B", 10, 40)  // inside A
            .complete("C", 20, 10)  // inside B
            .complete("D", 60, 30)  // inside A, after B
            .complete("E", 100, 20) // starts as A ends: A's sibling
            .complete("Z", 120, 0)  // zero length at E's end: a sibling again
            .complete("X", 200, 100)
            .complete("Y", 200, 50) // same start, shorter: X's child
            .begin("outer", 400)
            .begin("inner", 410)
            .end(420)
            .end(500);
        const auto r = rankOf(parse(b));
        const auto d = depthsByName(*r);
        const std::map<QString, int> expected{{"A", 0},     {"B", 1},    {"C", 2}, {"D", 1},
                                              {"E", 0},     {"Z", 0},    {"X", 0}, {"Y", 1},
                                              {"outer", 0}, {"inner", 1}};
        QCOMPARE(d, expected);
        // Self time: duration minus the children's time, by hand.
        auto selfOf = [&](const char* name) {
            for (std::uint32_t e = 0; e < r->trace.events.size(); ++e) {
                if (r->trace.name(r->trace.events[e]) == name) {
                    return r->selfTimeUs(e);
                }
            }
            return -1.0;
        };
        QCOMPARE(selfOf("A"), 100.0 - 40 - 30);
        QCOMPARE(selfOf("B"), 40.0 - 10);
        QCOMPARE(selfOf("C"), 10.0);
        QCOMPARE(selfOf("X"), 50.0);
        QCOMPARE(selfOf("outer"), 90.0);
    }

    void depthOfPartlyOverlappingSlices() {
        TraceBuilder b;
        b.complete("P", 0, 50)
            .complete("Q", 40, 40)  // starts inside P, ends after it
            .complete("R", 60, 10)  // P is over, Q still open: under Q
            .complete("S", 85, 5)   // both over
            .complete("T", 100, 10) // on another thread, the same times as nothing
            .complete("U", 105, 10, {}, 2);
        const auto r = rankOf(parse(b));
        const auto d = depthsByName(*r);
        QCOMPARE(d.at("P"), 0);
        QCOMPARE(d.at("Q"), 1);
        QCOMPARE(d.at("R"), 2);
        QCOMPARE(d.at("S"), 0);
        QCOMPARE(d.at("T"), 0);
        QCOMPARE(d.at("U"), 0); // thread 2 has its own rows
        // No two slices of one row overlap, anywhere.
        for (const auto& g : r->groups) {
            for (const auto& lane : g.lanes) {
                for (const auto& row : lane.rows) {
                    for (std::size_t i = 1; i < row.size(); ++i) {
                        QVERIFY(row.starts[i] >= row.ends[i - 1]);
                    }
                }
            }
        }
        // Q's self time: 40 minus R (10), as far as Q covers it.
        for (std::uint32_t e = 0; e < r->trace.events.size(); ++e) {
            if (r->trace.name(r->trace.events[e]) == "Q") {
                QCOMPARE(r->selfTimeUs(e), 30.0);
            }
        }
    }

    void lanesAreNamedAndOrderedAsTheTraceSays() {
        TraceBuilder b;
        // Thread 9 sorts before thread 3 by its thread_sort_index; GPU process 0 after the host.
        b.raw(R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python3.8"}})")
            .raw(R"({"ph":"M","name":"process_labels","pid":1,"args":{"labels":"CPU"}})")
            .raw(R"({"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":1}})")
            .raw(R"({"ph":"M","name":"process_name","pid":0,"args":{"name":"python3.8"}})")
            .raw(R"({"ph":"M","name":"process_labels","pid":0,"args":{"labels":"GPU 0"}})")
            .raw(R"({"ph":"M","name":"process_sort_index","pid":0,"args":{"sort_index":9}})")
            .raw(
                R"j({"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":"thread 3 (python3.8)"}})j")
            .raw(
                R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":3,"args":{"sort_index":20}})")
            .raw(
                R"j({"ph":"M","name":"thread_name","pid":1,"tid":9,"args":{"name":"thread 9 (python3.8)"}})j")
            .raw(
                R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":9,"args":{"sort_index":10}})")
            .raw(R"({"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7 "}})")
            .complete("work", 0, 10, "cpu_op", 3)
            .complete("work", 0, 10, "cpu_op", 9)
            .raw(
                R"({"ph":"X","cat":"kernel","name":"k","ts":5,"dur":3,"pid":0,"tid":7,"args":{"stream":7}})")
            .raw(R"({"ph":"X","name":"bare","ts":1,"dur":1,"pid":5,"tid":6})");
        const auto r = rankOf(parse(b));
        QCOMPARE(int(r->groups.size()), 3);
        QCOMPARE(r->groups[0].title, QString("CPU · python3.8"));
        QCOMPARE(r->groups[0].lanes[0].title, QString("thread 9 (python3.8)"));
        QCOMPARE(r->groups[0].lanes[1].title, QString("thread 3 (python3.8)"));
        QCOMPARE(r->groups[1].title, QString("process 5")); // no metadata: the numbers
        QCOMPARE(r->groups[1].lanes[0].title, QString("thread 6"));
        QCOMPARE(r->groups[2].title, QString("GPU 0 · python3.8"));
        QCOMPARE(r->groups[2].lanes[0].title, QString("stream 7"));
        QVERIFY(r->groups[2].device);
        // Class lanes first, in their fixed order.
        QCOMPARE(int(r->classLanes.size()), 4);
        QCOMPARE(r->classLanes[0].title, QString("compute"));
        QCOMPARE(r->classLanes[3].title, QString("memory"));
    }

    void flowPartnersFollowAc2gFlowsAndCorrelation() {
        const auto r = rankOf(trace::readTraceFile(kNccl.toStdString()));
        const auto& t = r->trace;
        // Independently: every ac2g flow with both ends, resolved by Qt's parser to the X
        // events that start where the flow's ends are, on the same thread.
        const QJsonArray events =
            QJsonDocument::fromJson(gunzip(kNccl)).object()["traceEvents"].toArray();
        std::map<std::tuple<qint64, qint64, QString>, QString> xAt; // (pid, tid, ts) -> name
        std::map<qint64, QJsonObject> starts, finishes;
        for (const QJsonValue& v : events) {
            const QJsonObject o = v.toObject();
            const QString ph = o["ph"].toString();
            if (ph == "X") {
                xAt[{o["pid"].toInteger(), o["tid"].toInteger(),
                     QString::number(o["ts"].toDouble(), 'f', 3)}] = o["name"].toString();
            } else if (o["cat"].toString() == "ac2g" && ph == "s") {
                starts[o["id"].toInteger()] = o;
            } else if (o["cat"].toString() == "ac2g" && ph == "f") {
                finishes[o["id"].toInteger()] = o;
            }
        }
        std::map<std::tuple<qint64, qint64, QString>, std::uint32_t> mine;
        for (std::uint32_t e = 0; e < t.events.size(); ++e) {
            mine[{t.events[e].pid, t.events[e].tid, QString::number(t.events[e].startUs, 'f', 3)}] =
                e;
        }
        int checked = 0;
        for (const auto& [id, s] : starts) {
            const auto f = finishes.find(id);
            if (f == finishes.end()) {
                continue;
            }
            const auto launchKey = std::make_tuple(s["pid"].toInteger(), s["tid"].toInteger(),
                                                   QString::number(s["ts"].toDouble(), 'f', 3));
            const auto deviceKey =
                std::make_tuple(f->second["pid"].toInteger(), f->second["tid"].toInteger(),
                                QString::number(f->second["ts"].toDouble(), 'f', 3));
            if (!xAt.count(launchKey) || !xAt.count(deviceKey) || checked > 400) {
                continue;
            }
            const std::uint32_t launch = mine.at(launchKey);
            const std::uint32_t device = mine.at(deviceKey);
            QCOMPARE(QString::fromStdString(t.name(t.events[device])), xAt.at(deviceKey));
            const auto forward = r->flows.partners(t, launch);
            const auto it = std::find_if(forward.begin(), forward.end(),
                                         [&](const auto& p) { return p.event == device; });
            QVERIFY2(it != forward.end(), qPrintable(xAt.at(deviceKey)));
            QVERIFY(it->isDevice && it->viaFlow);
            const auto backward = r->flows.partners(t, device);
            QVERIFY(std::any_of(backward.begin(), backward.end(),
                                [&](const auto& p) { return p.event == launch && !p.isDevice; }));
            ++checked;
        }
        QVERIFY2(checked > 100, qPrintable(QString::number(checked)));

        // Correlation alone (no flow): a hand-written launch and its kernel.
        TraceBuilder b;
        b.launched("kernel", "gemm", 100, 20, 77, 90).launched("kernel", "relu", 130, 5, 78, 95);
        const auto h = rankOf(parse(b));
        std::uint32_t gemm = 0, launch = 0;
        for (std::uint32_t e = 0; e < h->trace.events.size(); ++e) {
            const auto& name = h->trace.name(h->trace.events[e]);
            if (name == "gemm") {
                gemm = e;
            } else if (name == "cudaLaunchKernel" && h->trace.events[e].startUs == 90) {
                launch = e;
            }
        }
        const auto p = h->flows.partners(h->trace, launch);
        QCOMPARE(int(p.size()), 1);
        QCOMPARE(p[0].event, gemm);
        QVERIFY(p[0].viaCorrelation && !p[0].viaFlow);
        const auto details = timeline::describeSlice(timeline::stackRanks({h}), {0, gemm});
        QCOMPARE(int(details.partners.size()), 1);
        QCOMPARE(details.partners[0].name, QString("cudaLaunchKernel"));
        QVERIFY(!details.partners[0].isDevice);
        QCOMPARE(details.partners[0].via, QString("correlation 77"));
    }

    void rangeFiguresByHand() {
        // Host regime. compute: mm [0,100] and mm [200,260]; communication: gloo [50,150];
        // bookkeeping: the reducer's copy [90,130] (taken out of compute in this regime).
        TraceBuilder b;
        b.complete("aten::mm", 0, 100, "cpu_op")
            .complete("gloo:all_reduce", 50, 100, "cpu_op", 2)
            .complete("torch.distributed.ddp.reducer::copy_bucket_to_grad", 90, 40, "cpu_op", 3)
            .complete("aten::mm", 200, 60, "cpu_op");
        const auto stack = timeline::stackRanks({rankOf(parse(b))});
        // Display time starts at the first event (0 here), so the window is [40, 220].
        const auto ranges = timeline::measureRange(stack, 40, 220);
        QCOMPARE(int(ranges.size()), 1);
        const auto& f = ranges[0].figures;
        // compute = ([0,100] ∪ [200,260]) − [90,130], within [40,220]: [40,90] + [200,220].
        QCOMPARE(f.computeUs, 50.0 + 20.0);
        QCOMPARE(f.commUs, 100.0);       // [50,150]
        QCOMPARE(f.bookkeepingUs, 40.0); // [90,130]
        QCOMPARE(f.overlapUs, 40.0);     // [50,90]
        QCOMPARE(f.exposedCommUs, 60.0); // 100 − 40
        QCOMPARE(f.memoryUs, 0.0);
        QCOMPARE(ranges[0].window.start, 40.0);
        QCOMPARE(ranges[0].window.end, 220.0);
    }

    void rangeFiguresEqualSummarizeWindow() {
        // The range a user drags over the middle of a real trace's second step, measured by the
        // timeline, against `commprof trace summarize --window` on the same microseconds.
        const auto stack =
            timeline::stackRanks({rankOf(trace::readTraceFile(kNccl.toStdString()))});
        const auto& step = stack.ranks[0]->steps.at(1).window;
        const double from = stack.toDisplay(0, step.start + step.length() / 3);
        const double to = stack.toDisplay(0, step.start + step.length() * 2 / 3);
        const auto ranges = timeline::measureRange(stack, from, to);
        QCOMPARE(int(ranges.size()), 1);
        const auto& w = ranges[0].window;
        const CliResult r =
            runCli("commprof", {"trace", "summarize", kNccl, "--json", "--window",
                                QString("%1:%2").arg(w.start, 0, 'f', 6).arg(w.end, 0, 'f', 6)});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject cli = r.json()["window"].toObject();
        const auto& f = ranges[0].figures;
        for (const auto& [key, value] : stepFigures(f)) {
            QVERIFY2(cli.contains(key), qPrintable(key));
            QVERIFY2(
                std::abs(cli[key].toDouble() - value) < 1e-3,
                qPrintable(QString("%1: %2 vs %3").arg(key).arg(cli[key].toDouble()).arg(value)));
        }
        // Not a window where everything is zero: the comparison says something.
        QVERIFY(f.computeUs > 0 && f.commUs > 0);
    }

    void rangeAggregateByHand() {
        // One step of two ops with a child each, on two ranks that share a clock; a slice that
        // only touches the range's start is not in it.
        TraceBuilder b;
        b.complete("ProfilerStep#0", 0, 900, "user_annotation")
            .complete("aten::before", 40, 60, "cpu_op")
            .complete("aten::linear", 100, 300, "cpu_op")
            .complete("aten::addmm", 150, 200, "cpu_op")
            .complete("gloo:all_reduce", 500, 300, "cpu_op")
            .complete("aten::copy_", 550, 100, "cpu_op");
        const auto stack = timeline::stackRanks({rankOf(parse(b), 0), rankOf(parse(b), 1)});
        QCOMPARE(stack.offsetsUs[1], stack.offsetsUs[0]);
        const auto rows = timeline::aggregateRange(stack, 100, 600);
        std::map<QString, timeline::NameAggregate> by;
        for (const auto& a : rows) {
            by[a.name] = a;
        }
        // By hand, per rank, within [100, 600]:
        //   ProfilerStep#0 clipped to [100,600] = 500; children linear [100,400] and the
        //     all-reduce's [500,600]: self 500 - 300 - 100 = 100
        //   aten::linear 300, self 300 - addmm 200 = 100;  aten::addmm 200, self 200
        //   gloo:all_reduce clipped [500,600] = 100, self 100 - copy_'s [550,600] = 50
        //   aten::copy_ clipped [550,600] = 50, self 50;  aten::before ends at 100: left out
        const std::map<QString, std::tuple<double, double>> expected = {
            {"ProfilerStep#0", {500, 100}},
            {"aten::linear", {300, 100}},
            {"aten::addmm", {200, 200}},
            {"gloo:all_reduce", {100, 50}},
            {"aten::copy_", {50, 50}}};
        QCOMPARE(by.size(), expected.size());
        for (const auto& [name, totals] : expected) {
            QVERIFY2(by.count(name), qPrintable(name));
            const auto& a = by[name];
            QCOMPARE(int(a.count), 2); // one per rank
            QCOMPARE(a.totalUs, 2 * std::get<0>(totals));
            QCOMPARE(a.selfUs, 2 * std::get<1>(totals));
        }
        QCOMPARE(by["gloo:all_reduce"].cls, trace::EventClass::Communication);
        QCOMPARE(by["aten::addmm"].cls, trace::EventClass::Compute);
        // Longest total first.
        QCOMPARE(rows.front().name, QString("ProfilerStep#0"));
        QCOMPARE(rows.back().name, QString("aten::copy_"));
        QVERIFY(timeline::aggregateRange(stack, 600, 100).empty());
    }

    void rangeAggregateOfARealTrace() {
        // The middle third of a real trace's second step, against Qt's own reading of the
        // file: per name, the X events that overlap the window and their clipped durations.
        const auto stack =
            timeline::stackRanks({rankOf(trace::readTraceFile(kNccl.toStdString()))});
        const auto& step = stack.ranks[0]->steps.at(1).window;
        const double from = step.start + step.length() / 3; // trace time
        const double to = step.start + step.length() * 2 / 3;
        std::map<QString, std::pair<int, double>> expected;
        for (const QJsonValue& v :
             QJsonDocument::fromJson(gunzip(kNccl)).object()["traceEvents"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["ph"].toString() != "X" || !o.contains("dur")) {
                continue;
            }
            const double s = o["ts"].toDouble();
            const double e = s + o["dur"].toDouble();
            if (e > from && s < to) {
                auto& x = expected[o["name"].toString()];
                ++x.first;
                x.second += std::min(e, to) - std::max(s, from);
            }
        }
        QVERIFY(expected.size() > 10);
        const auto rows =
            timeline::aggregateRange(stack, stack.toDisplay(0, from), stack.toDisplay(0, to));
        std::map<QString, std::pair<int, double>> got;
        double self = 0, total = 0;
        for (const auto& a : rows) {
            auto& x = got[a.name];
            x.first += int(a.count);
            x.second += a.totalUs;
            QVERIFY(a.selfUs <= a.totalUs + 1e-6);
            self += a.selfUs;
            total += a.totalUs;
        }
        QCOMPARE(got.size(), expected.size());
        for (const auto& [name, x] : expected) {
            QVERIFY2(got.count(name), qPrintable(name));
            QVERIFY2(
                got[name].first == x.first,
                qPrintable(QString("%1: %2 vs %3").arg(name).arg(got[name].first).arg(x.first)));
            QVERIFY2(
                std::abs(got[name].second - x.second) < 1e-3,
                qPrintable(QString("%1: %2 vs %3").arg(name).arg(got[name].second).arg(x.second)));
        }
        QVERIFY(self > 0 && self < total);
    }

    void overviewBinsTheClassSpans() {
        // compute [0,100] and [200,260]; communication [50,150]; the trace ends at 300 (the
        // idle op), so 6 bins are 50 µs each.
        TraceBuilder b;
        b.complete("aten::mm", 0, 100, "cpu_op")
            .complete("gloo:all_reduce", 50, 100, "cpu_op", 2)
            .complete("aten::mm", 200, 60, "cpu_op")
            .complete("idle", 299, 1, "user_annotation", 4);
        const auto stack = timeline::stackRanks({rankOf(parse(b))});
        QCOMPARE(stack.endUs, 300.0);
        const auto o = timeline::buildOverview(stack, 6);
        QCOMPARE(int(o.bins), 6);
        QCOMPARE(o.binUs, 50.0);
        QCOMPARE(int(o.ranks.size()), 1);
        const auto& compute = o.ranks[0].busy[0];
        const auto& comm = o.ranks[0].busy[1];
        QCOMPARE(stack.ranks[0]->classLanes[0].cls, trace::EventClass::Compute);
        QCOMPARE(stack.ranks[0]->classLanes[1].cls, trace::EventClass::Communication);
        const std::vector<float> computeByHand = {1, 1, 0, 0, 1, 0.2f};
        const std::vector<float> commByHand = {0, 1, 1, 0, 0, 0};
        for (int i = 0; i < 6; ++i) {
            QVERIFY2(std::abs(compute[std::size_t(i)] - computeByHand[std::size_t(i)]) < 1e-6,
                     qPrintable(QString("bin %1: %2").arg(i).arg(compute[std::size_t(i)])));
            QCOMPARE(comm[std::size_t(i)], commByHand[std::size_t(i)]);
        }
    }

    void searchCounts() {
        TraceBuilder b;
        b.complete("aten::mm", 0, 10)
            .complete("aten::mm", 20, 10)
            .complete("aten::MM_backward", 40, 10)
            .complete("ncclKernel_AllReduce_RING", 60, 10)
            .complete("gloo:all_reduce", 80, 10)
            .complete("aten::add_", 100, 10);
        TraceBuilder b2;
        b2.complete("aten::mm", 5, 10).complete("gloo:all_reduce", 85, 10);
        const auto stack = timeline::stackRanks({rankOf(parse(b), 0), rankOf(parse(b2), 1)});
        auto count = [&](const QString& p, bool re) {
            return int(timeline::searchSlices(stack, p, re).count());
        };
        QCOMPARE(count("mm", false), 4); // case ignored: MM_backward too
        QCOMPARE(count("aten::", false), 5);
        QCOMPARE(count("^aten::m", true), 4);
        QCOMPARE(count("all_?reduce", true), 3);
        QCOMPARE(count("nothing", false), 0);
        QCOMPARE(count("", false), 0);
        const auto bad = timeline::searchSlices(stack, "(", true);
        QVERIFY(!bad.error.isEmpty());
        QCOMPARE(int(bad.count()), 0);
        const auto m = timeline::searchSlices(stack, "mm", false);
        QCOMPARE(int(m.perRank[0]), 3);
        QCOMPARE(int(m.perRank[1]), 1);
        // In time order across ranks: 0 (r0), 5 (r1), 20, 40.
        QCOMPARE(m.startsUs, (std::vector<double>{0, 5, 20, 40}));
        QCOMPARE(m.slices[1].rank, 1);
        QCOMPARE(int(m.nextAfter(5, true)), 2);
        QCOMPARE(int(m.nextAfter(40, true)), 0); // wraps
        QCOMPARE(int(m.nextAfter(0, false)), 3); // wraps back
        QCOMPARE(int(m.nextAfter(20, false)), 1);

        // On a real trace, against a count by Qt's parser.
        const auto real = timeline::stackRanks({rankOf(trace::readTraceFile(kNccl.toStdString()))});
        int expected = 0;
        for (const QJsonValue& v :
             QJsonDocument::fromJson(gunzip(kNccl)).object()["traceEvents"].toArray()) {
            const QJsonObject o = v.toObject();
            expected += o["ph"].toString() == "X" &&
                        o["name"].toString().contains("ncclkernel", Qt::CaseInsensitive);
        }
        QVERIFY(expected > 0);
        QCOMPARE(int(timeline::searchSlices(real, "ncclKernel", false).count()), expected);
    }

    void sameSliceOnEveryRank() {
        // Rank 1 runs the same ops 3 µs later; rank 2 has one more bucket before.
        auto build = [](double shift, bool extra) {
            TraceBuilder b;
            b.complete("c10d::allreduce_bucket#0", 10 + shift, 5)
                .complete("c10d::allreduce_bucket#1", 20 + shift, 5)
                .complete("c10d::allreduce_bucket#0", 40 + shift, 5);
            if (extra) {
                b.complete("warmup", 0, 1);
            }
            return trace::parseTraceText(b.object().toStdString(), "r");
        };
        const auto stack = timeline::stackRanks(
            {rankOf(build(0, false), 0), rankOf(build(3, false), 1), rankOf(build(1, true), 2)});
        QCOMPARE(stack.clocks.mode, timeline::ClockMode::Shared);
        // The second occurrence of bucket #0 on rank 0 (event 2).
        const auto m = timeline::matchAcrossRanks(stack, {0, 2});
        QCOMPARE(int(m.slices.size()), 3);
        QCOMPARE(m.startsUs[0] + 3, m.startsUs[1]);
        QCOMPARE(m.startsUs[0] + 1, m.startsUs[2]);
        QCOMPARE(m.skewUs, 3.0);
        QCOMPARE(m.lastRank, 1);
        QCOMPARE(m.firstRank, 0);
        QVERIFY(m.matchedBy.contains("occurrence 2"));
    }

    // The issue's case: rank 1's trace lacks step 8's second all-reduce. By name and occurrence
    // over the whole trace, rank 0's step-8 bucket 1 was paired with rank 1's step-9 bucket 0
    // and a step's length shown as skew; by step and order it is unmatched on rank 1, and
    // step 9's buckets still pair with step 9's.
    void aCollectiveMissingOnOneRankIsUnmatched() {
        auto build = [](bool lacksOne) {
            TraceBuilder b;
            b.complete("ProfilerStep#8", 0, 1000).complete("gloo:all_reduce", 100, 50);
            if (!lacksOne) {
                b.complete("gloo:all_reduce", 300, 50);
            }
            b.complete("ProfilerStep#9", 1000, 1000)
                .complete("gloo:all_reduce", 1100, 50)
                .complete("gloo:all_reduce", 1300, 50);
            return trace::parseTraceText(b.object().toStdString(), "r");
        };
        const auto stack = timeline::stackRanks({rankOf(build(false), 0), rankOf(build(true), 1)});
        const auto eventAt = [&](int rank, double ts) {
            const auto& t = stack.ranks[std::size_t(rank)]->trace;
            for (std::uint32_t i = 0; i < t.events.size(); ++i) {
                if (t.name(t.events[i]) == "gloo:all_reduce" && t.events[i].startUs == ts) {
                    return i;
                }
            }
            return std::uint32_t(t.events.size());
        };
        QVERIFY(!stack.ranks[0]->trace.collectives.empty());
        const auto missing = timeline::matchAcrossRanks(stack, {0, eventAt(0, 300)});
        QCOMPARE(int(missing.slices.size()), 1);
        QCOMPARE(missing.unmatchedRanks, std::vector<int>{1});
        QCOMPARE(missing.skewUs, 0.0);
        QVERIFY2(missing.matchedBy.contains("step 8"), qPrintable(missing.matchedBy));
        // Step 9's second bucket: rank 1's at 1300, not its third collective by count.
        const auto later = timeline::matchAcrossRanks(stack, {0, eventAt(0, 1300)});
        QCOMPARE(int(later.slices.size()), 2);
        QVERIFY(later.unmatchedRanks.empty());
        QCOMPARE(later.slices[1].event, eventAt(1, 1300));
        QCOMPARE(later.skewUs, stack.toDisplay(1, 1300) - stack.toDisplay(0, 1300));
    }

    void clocksThatDifferAreAlignedOnTheFirstCollective() {
        // Two hand-written ranks an hour apart on their own clocks: the first all-reduce ends
        // at 150 on rank 0 and at 3.6e9 + 170 on rank 1.
        TraceBuilder a;
        a.complete("aten::mm", 0, 100).complete("gloo:all_reduce", 100, 50);
        TraceBuilder b;
        b.complete("aten::mm", 3.6e9 + 10, 100).complete("gloo:all_reduce", 3.6e9 + 120, 50);
        const auto stack = timeline::stackRanks({rankOf(parse(a), 0), rankOf(parse(b), 1)});
        QCOMPARE(stack.clocks.mode, timeline::ClockMode::AlignedOnCollective);
        QCOMPARE(stack.clocks.shiftUs[1], -(3.6e9 + 20));
        QVERIFY(stack.clocks.note.contains("clocks differ"));
        QVERIFY(stack.clocks.note.contains("all_reduce"));
        // Both collectives now end together on the display axis.
        QCOMPARE(stack.toDisplay(0, 150), stack.toDisplay(1, 3.6e9 + 170));
    }

    void layoutCollapsesAndFindsRows() {
        TraceBuilder b;
        b.complete("A", 0, 100).complete("B", 10, 10).complete("C", 0, 10, {}, 2);
        const auto stack = timeline::stackRanks({rankOf(parse(b), 0), rankOf(parse(b), 1)});
        const timeline::LayoutMetrics m;
        timeline::CollapseState collapsed;
        const timeline::TimelineLayout open(stack, collapsed, m);
        // Per rank: header, 4 class lanes, 1 process, thread 1 (2 depths), thread 2 (1 depth).
        QCOMPARE(int(open.rows().size()), 2 * (1 + 4 + 1 + 2 + 1));
        QCOMPARE(open.height(),
                 2 * (m.rankHeader + 4 * m.classRow + m.processHeader + 3 * m.sliceRow));
        for (const auto& row : open.rows()) {
            QCOMPARE(open.rowAt(row.top), std::size_t(&row - open.rows().data()));
            QCOMPARE(open.rowAt(row.bottom() - 1), std::size_t(&row - open.rows().data()));
        }
        QCOMPARE(open.rowAt(-1), open.rows().size());
        QCOMPARE(open.rowAt(open.height()), open.rows().size());
        const auto& rank1 = *stack.ranks[1];
        const std::size_t rowB = open.rowOfSlice(1, rank1.places[1]);
        QCOMPARE(open.rows()[rowB].kind, timeline::RowKind::Slices);
        QCOMPARE(open.rows()[rowB].depth, 1);
        collapsed.toggleGroup(1, 0);
        const timeline::TimelineLayout groupShut(stack, collapsed, m);
        QCOMPARE(int(groupShut.rows().size()), 9 + 6);
        // A slice in a collapsed group is found at the group's header.
        QCOMPARE(groupShut.rows()[groupShut.rowOfSlice(1, rank1.places[1])].kind,
                 timeline::RowKind::Process);
        collapsed.toggleRank(0);
        const timeline::TimelineLayout rankShut(stack, collapsed, m);
        QCOMPARE(int(rankShut.rows().size()), 1 + 6);
        QCOMPARE(rankShut.rowsOfRank(1).first, std::size_t(1));

        // Pinned: only the lanes named, all their depths, in the order pinned; a key naming
        // no lane is left out, and slices elsewhere are not in it.
        const auto pinned = timeline::TimelineLayout::pinnedLanes(
            stack, {{1, 0, 0}, {0, 0, 1}, {5, 0, 0}, {0, 0, 9}}, m);
        QCOMPARE(int(pinned.rows().size()), 2 + 1);
        QCOMPARE(pinned.height(), 3 * m.sliceRow);
        QCOMPARE(pinned.rows()[0].rank, 1);
        QCOMPARE(pinned.rows()[1].depth, 1);
        QCOMPARE(pinned.rows()[2].rank, 0);
        QCOMPARE(pinned.rows()[2].lane, 1);
        QCOMPARE(pinned.rowOfSlice(1, rank1.places[1]), std::size_t(1)); // B, depth 1
        QCOMPARE(pinned.rowOfSlice(0, stack.ranks[0]->places[0]), pinned.rows().size());
    }

    void levelOfDetailKeepsWhatAPixelShows() {
        // 100 000 slices of 1 µs every 2 µs: at 1 ms per pixel, the coarse copy the drawing
        // walks has at most 8 entries per pixel (its buckets are 4^k ns, more than an eighth
        // of a pixel) and still covers the same time.
        timeline::SliceRow row;
        for (int i = 0; i < 100000; ++i) {
            row.push(2.0 * i, 2.0 * i + 1, std::uint32_t(i), 1, trace::EventClass::Compute);
        }
        row.buildLevels();
        QVERIFY(!row.levels.empty());
        const auto& coarse = row.forResolution(1000.0);
        QVERIFY(coarse.size() <= 200000 / 1000 * 8 + 1);
        QVERIFY(coarse.size() * 50 < row.size());
        QCOMPARE(coarse.starts.front(), 0.0);
        QCOMPARE(coarse.ends.back(), 2.0 * 99999 + 1);
        for (std::size_t i = 1; i < coarse.size(); ++i) {
            QVERIFY(coarse.starts[i] >= coarse.ends[i - 1]);
            QVERIFY(coarse.ends[i - 1] - coarse.starts[i - 1] <= 500.0 + 1);
        }
        // At a nanosecond per pixel the row itself is drawn.
        QCOMPARE(&row.forResolution(1e-3), &row);
    }

    void textStaysReadableOnEveryFill() {
        std::vector<timeline::Rgb> fills(timeline::namePalette().begin(),
                                         timeline::namePalette().end());
        for (auto c : {trace::EventClass::Compute, trace::EventClass::Communication,
                       trace::EventClass::Bookkeeping, trace::EventClass::Memory,
                       trace::EventClass::NotCounted}) {
            fills.push_back(timeline::classColour(c));
        }
        for (const auto& f : fills) {
            // WCAG AA for normal text is 4.5:1.
            QVERIFY2(timeline::contrastRatio(f, timeline::textColourOn(f)) >= 4.5,
                     qPrintable(QString("%1,%2,%3").arg(f.r).arg(f.g).arg(f.b)));
        }
        QCOMPARE(timeline::contrastRatio({0, 0, 0}, {255, 255, 255}), 21.0);
        // The same name always gets the same colour; different names spread over the palette.
        QCOMPARE(timeline::nameColour("aten::mm"), timeline::nameColour(std::string("aten::mm")));
        std::set<std::tuple<int, int, int>> seen;
        for (int i = 0; i < 200; ++i) {
            const auto c = timeline::nameColour("op" + std::to_string(i));
            seen.insert({c.r, c.g, c.b});
        }
        QVERIFY(seen.size() >= 12);
        // Issue 40: colouring by name never borrows a class's colour: every name colour's hue
        // keeps 20 degrees from each class's (a hook's slice must not read as communication).
        const auto hue = [](timeline::Rgb c) { // HSV hue in degrees
            const double r = c.r, g = c.g, b = c.b;
            const double hi = std::max({r, g, b}), lo = std::min({r, g, b});
            const double d = hi - lo;
            const double h = d == 0    ? 0
                             : hi == r ? std::fmod((g - b) / d, 6.0)
                             : hi == g ? (b - r) / d + 2
                                       : (r - g) / d + 4;
            return std::fmod(h * 60 + 360, 360.0);
        };
        for (const auto& n : timeline::namePalette()) {
            for (const auto c : {trace::EventClass::Compute, trace::EventClass::Communication,
                                 trace::EventClass::Bookkeeping, trace::EventClass::Memory}) {
                const double apart = std::abs(hue(n) - hue(timeline::classColour(c)));
                QVERIFY2(std::min(apart, 360 - apart) >= 20,
                         qPrintable(QString("%1,%2,%3 beside class %4")
                                        .arg(n.r)
                                        .arg(n.g)
                                        .arg(n.b)
                                        .arg(int(c))));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstTimelineModel)
#include "tst_timeline_model.moc"
