// SPDX-License-Identifier: GPL-3.0-or-later
// The simulated bucket schedule against a hand calculation, and the ready times derived from
// recorded bucket launches.

#include "analysis/bucket_schedule.h"
#include "analysis/ready_times.h"
#include "results/rank_file.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace commprof::analysis;

namespace {

// Four parameters in gradient-ready order: 60, 60, 200 and 100 bytes, ready at 10, 20, 40 and
// 50 us; compute ends at 55 us; each all-reduce costs 5 us + 0.1 us/B.
const std::vector<ReadyParam> kParams{{60, 10, {}}, {60, 20, {}}, {200, 40, {}}, {100, 50, {}}};
const CollectiveCost kCost{5, 0.1, 2, 1};
const HookModel kAllReduce = *hookModel("allreduce");

// When bucket i's collective started and ended, in us: what the hand-worked comments give.
QPair<double, double> span(const Schedule& s, std::size_t i) {
    return {s.buckets[i].startUs, s.buckets[i].endUs};
}

} // namespace

class BucketScheduleTest : public QObject {
    Q_OBJECT
private slots:
    // First bucket 100 B, cap 300 B:
    //   p0 60 < 100; p0+p1 120 >= 100: bucket A {p0,p1} 120 B (the first limit closes it)
    //   p2 200 < 300; p2+p3 300 >= 300: bucket B {p2,p3} 300 B
    //   A ready 20, starts 20, 5 + 12 = 17 us, ends 37
    //   B ready 50, starts max(50, 37) = 50, 5 + 30 = 35 us, ends 85
    //   exposed = 85 - 55 = 30 us
    // (With the cap for the first bucket too, {p0,p1,p2} 320 B would end at 40 + 37 = 77 and
    // {p3} at 77 + 15 = 92: exposed 37.)
    void firstBucketRuleAtCap300() {
        const Schedule s = simulateSchedule(kParams, {100, 300}, kAllReduce, kCost, 55);
        QCOMPARE(s.buckets.size(), std::size_t(2));
        QCOMPARE(s.buckets[0].nparams, 2);
        QCOMPARE(s.buckets[0].bytes, 120.0);
        QCOMPARE(span(s, 0), qMakePair(20.0, 37.0));
        QCOMPARE(s.buckets[1].nparams, 2);
        QCOMPARE(span(s, 1), qMakePair(50.0, 85.0));
        QCOMPARE(s.exposedUs(), 30.0);
    }

    // First bucket 100 B, cap 150 B:
    //   A {p0,p1} 120 B as above: 20 .. 37
    //   p2 200 >= 150: bucket B {p2}, ready 40, starts 40, 5 + 20 = 25 us, ends 65
    //   leftover bucket C {p3} 100 B, ready 50, starts max(50, 65) = 65, 5 + 10 = 15, ends 80
    //   exposed = 80 - 55 = 25 us
    // fp16 (half the bytes on the wire): A 20 .. 31, B 40 .. 55, C 55 .. 65: exposed 10 us.
    void smallerCapAndHalfTheWire() {
        const Schedule s = simulateSchedule(kParams, {100, 150}, kAllReduce, kCost, 55);
        QCOMPARE(s.buckets.size(), std::size_t(3));
        QCOMPARE(s.buckets[1].nparams, 1);
        QCOMPARE(span(s, 1), qMakePair(40.0, 65.0));
        QCOMPARE(span(s, 2), qMakePair(65.0, 80.0));
        QCOMPARE(s.exposedUs(), 25.0);

        const auto half = hookModel("fp16_compress");
        QVERIFY(half);
        const Schedule h = simulateSchedule(kParams, {100, 150}, *half, kCost, 55);
        QCOMPARE(h.buckets[0].endUs, 31.0);
        QCOMPARE(h.buckets[1].endUs, 55.0);
        QCOMPARE(h.buckets[2].endUs, 65.0);
        QCOMPARE(h.exposedUs(), 10.0);
    }

    // Everything done before the compute ends exposes nothing; a compute end before the last
    // gradient is raised to it.
    void nothingExposedAndComputeEndRaised() {
        const Schedule s = simulateSchedule(kParams, {100, 150}, kAllReduce, {0, 0, 2, 1}, 200);
        QCOMPARE(s.exposedUs(), 0.0);
        const Schedule t = simulateSchedule(kParams, {100, 150}, kAllReduce, {0, 0, 2, 1}, 0);
        QCOMPARE(t.computeEndUs, 50.0);
    }

    // The scale multiplies every collective's cost; twice the scale here: A 20 .. 54 (2 x 17),
    // B 54 .. 124 (2 x 35): exposed 124 - 55 = 69 us.
    void scaleMultipliesEachCollective() {
        const Schedule s = simulateSchedule(kParams, {100, 300}, kAllReduce, {5, 0.1, 2, 2}, 55);
        QCOMPARE(s.buckets[0].endUs, 54.0);
        QCOMPARE(s.buckets[1].endUs, 124.0);
        QCOMPARE(s.exposedUs(), 69.0);
    }

    // PowerSGD at rank 1 (min_compression_rate 2), PyTorch's rule by hand:
    //   w 534 x 534 (1,140,624 B): (534 + 534) x 1 x 2 = 2,136 < 285,156: P and Q, 4,272 B
    //   b 534 (a 534 x 1 matrix, 2,136 B): (534 + 1) x 1 x 2 = 1,070 >= 534: sent whole
    //   conv 64 x 3 x 3 x 3 (6,912 B, viewed 64 x 27): 91 x 2 = 182 < 1,728: 364 B
    // A bucket {w, b, conv}: 6,772 B; {b} alone 2,136 B; {w} alone 4,272 B; each in the hook's
    // three all-reduces (the uncompressed, every P, every Q), empty or not. At rank 4, w sends
    // 17,088 B. A float64 w (2,281,248 B) sends 8,544 B. Local sends nothing and costs nothing.
    void hookWireByHand() {
        const ReadyParam w{1140624, 0, {534, 534}}, b{2136, 0, {534}}, conv{6912, 0, {64, 3, 3, 3}};
        const HookModel powersgd = *hookModel("powersgd", 1);
        const BucketWire all = powersgd.wire({&w, &b, &conv});
        QCOMPARE(all.collectives, 3);
        QCOMPARE(all.bytes, 6772.0);
        QCOMPARE(powersgd.wire({&b}).collectives, 3);
        QCOMPARE(powersgd.wire({&b}).bytes, 2136.0);
        QCOMPARE(powersgd.wire({&w}).collectives, 3);
        QCOMPARE(powersgd.wire({&w}).bytes, 4272.0);
        QCOMPARE(hookModel("powersgd", 4)->wire({&w}).bytes, 17088.0);
        const ReadyParam w64{2281248, 0, {534, 534}};
        QCOMPARE(powersgd.wire({&w64}).bytes, 8544.0);
        QCOMPARE(hookModel("bf16_compress")->wire({&w, &b}).bytes, (1140624.0 + 2136.0) / 2);
        const BucketWire none = hookModel("local")->wire({&w, &b});
        QCOMPARE(none.collectives, 0);
        const CollectiveCost tripled{5, 0.1, 2, 3};
        const auto us = [](const CollectiveCost& c, const BucketWire& wire) {
            return c.us(wire.collectives, wire.bytes);
        };
        QCOMPARE(us(tripled, none), 0.0);
        QCOMPARE(us(tripled, powersgd.wire({&w})), 3 * (3 * 5 + 0.1 * 4272));
        // A fit with a negative intercept prices a small collective at 0, never below.
        QCOMPARE(us(CollectiveCost{-100, 0.1, 2, 1}, powersgd.wire({&b})), 0.0); // -300 + 213.6
        QString why;
        QVERIFY(!hookModel("topk", 1, &why));
        QVERIFY(why.contains("topk"));
    }

    // Registered w1 400 B, b1 100 B, w2 200 B, b2 100 B: ready order b2, w2, b1, w1. Iteration 3
    // (recorded from 3) has bucket 0 {b2, w2} 300 B launched at 1000 us, done at 2000, and
    // bucket 1 {b1, w1} 500 B launched at 3000, done at 5000, after the backward's start B;
    // backward_ms 5, so the start is 5000 us before the last completion, B itself.
    //   b2: 0 + 100/300 x 1000 = 333.3; w2: 1000; b1: 1000 + 100/500 x 2000 = 1400; w1: 3000
    //   compute end 3000; forward 2000 us and optimizer 1000 us (iteration 2 is not recorded);
    //   exposed: the last completion 5000 after the last launch 3000, 2000 us. w1 is 10 x 10.
    void readyTimesFromBucketLaunches() {
        const double b = 1e9;
        const auto param = [](int bytes, QJsonArray shape = {}) {
            return QJsonObject{{"bytes", bytes}, {"shape", shape}};
        };
        const auto bucket = [&](int index, int bytes, double startUs, double endUs) {
            return QJsonObject{{"iter", 3},
                               {"index", index},
                               {"bytes", bytes},
                               {"nparams", 2},
                               {"start_ns", b + startUs * 1e3},
                               {"end_ns", b + endUs * 1e3}};
        };
        QJsonObject rank{
            {"rank", 0},
            {"world_size", 1},
            {"record_from_iteration", 3},
            {"parameters", QJsonArray{param(400, {10, 10}), param(100), param(200), param(100)}},
            {"iterations", QJsonArray{QJsonObject{{"iter", 2},
                                                  {"forward_ms", 99.0},
                                                  {"backward_ms", 99.0},
                                                  {"optimizer_ms", 99.0},
                                                  {"step_ms", 99.0}},
                                      QJsonObject{{"iter", 3},
                                                  {"forward_ms", 2.0},
                                                  {"backward_ms", 5.0},
                                                  {"optimizer_ms", 1.0},
                                                  {"step_ms", 8.5}}}},
            {"buckets", QJsonArray{bucket(0, 300, 1000, 2000), bucket(1, 500, 3000, 5000)}}};
        const auto ranks = [](const QJsonObject& doc) {
            const commprof::results::RankFile f =
                commprof::results::parseRankFile(QJsonDocument(doc).toJson(), "rank0.json");
            return QMap<int, commprof::results::RankRecord>{{0, f.record}};
        };
        QString why;
        const auto r = profileFromRankFiles("c", ranks(rank), &why);
        QVERIFY2(r, qPrintable(why));
        QCOMPARE(r->params.size(), std::size_t(4));
        const double expected[] = {1000.0 / 3, 1000, 1400, 3000};
        for (std::size_t i = 0; i < 4; ++i) {
            QVERIFY(std::abs(r->params[i].readyUs - expected[i]) < 1e-6);
        }
        QCOMPARE(r->params[0].bytes, 100.0);
        QCOMPARE(r->params[3].bytes, 400.0);
        QCOMPARE(r->computeEndUs, 3000.0);
        QCOMPARE(r->forwardUs, 2000.0);
        QCOMPARE(r->optimizerUs, 1000.0);
        QCOMPARE(r->exposedUs, 2000.0);
        QCOMPARE(r->params[3].shape, (std::vector<double>{10, 10}));
        QCOMPARE(*measuredStepMs(ranks(rank)), 8.5);

        // Buckets that do not hold the parameters in reverse registration order: refused.
        rank["buckets"] = QJsonArray{bucket(0, 500, 1000, 2000), bucket(1, 300, 3000, 5000)};
        QVERIFY(!profileFromRankFiles("c", ranks(rank), &why));
        QVERIFY(why.contains("reverse registration order"));
    }
};

QTEST_APPLESS_MAIN(BucketScheduleTest)
#include "tst_bucket_schedule.moc"
