// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank --sweep on real Gloo process groups, nccl-tests' bandwidth definitions checked
// against factors computed by hand, and the alpha-beta fit with its refusals.

#include "analysis/collective_sweep.h"
#include "analysis/ddp_prediction.h"
#include "cli_runner.h"
#include "inputs/sweep_files.h"
#include "pool_helpers.h"
#include "report/report_data.h"
#include "results/rank_file.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace commprof;

namespace {

const analysis::SweepSeries* seriesOf(const std::vector<analysis::SweepSeries>& all,
                                      const QString& kind) {
    for (const auto& s : all) {
        if (s.kind == kind) {
            return &s;
        }
    }
    return nullptr;
}

analysis::SweepPoint timed(double bytes, double us) {
    return analysis::sweepPoint("all_reduce", bytes, 2, {{0, us}, {1, us}});
}

} // namespace

class TstSweep : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString sweep2_; // the world-size-2 sweep, once it ran

private slots:
    // nccl-tests' factors, written out by hand for each kind: all_reduce 2(n-1)/n,
    // all_gather and reduce_scatter (n-1)/n, broadcast 1.
    void bandwidthFactorsByHand_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("world");
        QTest::addColumn<double>("factor");
        QTest::newRow("all_reduce n=2") << "all_reduce" << 2 << 1.0;
        QTest::newRow("all_reduce n=3") << "all_reduce" << 3 << 4.0 / 3.0;
        QTest::newRow("all_reduce n=4") << "all_reduce" << 4 << 1.5;
        QTest::newRow("all_gather n=2") << "all_gather" << 2 << 0.5;
        QTest::newRow("all_gather n=3") << "all_gather" << 3 << 2.0 / 3.0;
        QTest::newRow("all_gather n=4") << "all_gather" << 4 << 0.75;
        QTest::newRow("reduce_scatter n=2") << "reduce_scatter" << 2 << 0.5;
        QTest::newRow("reduce_scatter n=3") << "reduce_scatter" << 3 << 2.0 / 3.0;
        QTest::newRow("reduce_scatter n=4") << "reduce_scatter" << 4 << 0.75;
        QTest::newRow("broadcast n=2") << "broadcast" << 2 << 1.0;
        QTest::newRow("broadcast n=3") << "broadcast" << 3 << 1.0;
        QTest::newRow("broadcast n=4") << "broadcast" << 4 << 1.0;
    }
    void bandwidthFactorsByHand() {
        QFETCH(QString, kind);
        QFETCH(int, world);
        QFETCH(double, factor);
        // 3 MB in 1.5 ms on the slowest rank: algbw 2 GB/s, by hand.
        std::map<int, double> us;
        for (int r = 0; r < world; ++r) {
            us[r] = r == world - 1 ? 1500.0 : 1000.0;
        }
        const auto p = analysis::sweepPoint(kind, 3e6, world, us);
        QCOMPARE(p.slowestRank, world - 1);
        QCOMPARE(p.slowestUs, 1500.0);
        QVERIFY(std::abs(p.algbwGBps - 2.0) < 1e-12);
        QVERIFY(p.busbwGBps);
        QVERIFY(std::abs(*p.busbwGBps - 2.0 * factor) < 1e-12);
    }

    void fitRecoversALineAndRefusesWhatCannotBeFitted() {
        // Exact times of alpha 20 us + 1 ns per byte over 1 KB .. 1 MB.
        std::vector<analysis::SweepPoint> line;
        for (double b = 1024; b <= 1 << 20; b *= 4) {
            line.push_back(timed(b, 20.0 + b * 1e-3));
        }
        const auto fit = analysis::fitLinear(line);
        QVERIFY2(!fit.refused, qPrintable(fit.reason));
        QVERIFY(std::abs(fit.alphaUs - 20.0) < 1e-6);
        QVERIFY(std::abs(fit.betaUsPerByte - 1e-3) < 1e-12);
        QVERIFY(std::abs(fit.r2 - 1.0) < 1e-9);
        QVERIFY(std::abs(fit.asymptoticGBps() - 1.0) < 1e-9);
        // A regime change at the top: bandwidth halves from 2 MB on; those sizes are left out
        // and the line below is still exact.
        auto withDrop = line;
        withDrop.push_back(timed(4194304, 2 * (20.0 + 4194304 * 1e-3)));
        const auto cut = analysis::fitLinear(withDrop);
        QVERIFY2(!cut.refused, qPrintable(cut.reason));
        QCOMPARE(*cut.leftOutFromBytes, 4194304.0);
        QCOMPARE(cut.toBytes, double(1 << 20));
        QVERIFY(std::abs(cut.alphaUs - 20.0) < 1e-6);
        // Two sizes: refused.
        auto two = analysis::fitLinear({line[0], line[1]});
        QVERIFY(two.refused);
        QVERIFY(two.reason.contains("at least 3"));
        // Three sizes spanning 4x: refused.
        auto narrow = analysis::fitLinear({timed(1000, 21), timed(2000, 22), timed(4000, 24)});
        QVERIFY(narrow.refused);
        QVERIFY2(narrow.reason.contains("span 4x"), qPrintable(narrow.reason));
        // Time falling with size: refused, never a negative beta or R^2 passed on.
        auto falling = analysis::fitLinear(
            {timed(100, 90), timed(1000, 50), timed(10000, 30), timed(100000, 10)});
        QVERIFY(falling.refused);
    }

    // The bucket fit of a layer whose buckets queue behind each other came out at R^2 = -0.2 on
    // the smoke matrix: such a fit is never a macro.
    void macrosNeverExportANegativeRsquared() {
        report::ReportData data;
        store::CellRow cell;
        cell.id = "c";
        cell.layer = "gloo_cpu";
        cell.status = "complete";
        data.cells.push_back(cell);
        analysis::AlphaBetaFit bad;
        bad.alpha = 1e-4;
        bad.beta = 1e-9;
        bad.r2 = -0.2;
        data.bucketPools["gloo_cpu"].fit = bad;
        QString tex = report::macrosTex(data);
        QVERIFY2(!tex.contains("FitRsquared"), qPrintable(tex));
        QVERIFY2(!tex.contains("AlphaUs"), qPrintable(tex));
        QVERIFY2(tex.contains("bucket fit refused (R^2 = -0.200"), qPrintable(tex));
        data.bucketPools["gloo_cpu"].fit->r2 = 0.95;
        tex = report::macrosTex(data);
        QVERIFY2(tex.contains("FitRsquared}{0.950}"), qPrintable(tex));
    }

    // The like-for-like rule on spans written by hand: per bucket of a step, the collective's
    // own time is the span of the rank that arrived last, the wait is how much earlier the first
    // arrived; a step where a rank lacks a span is left out; the prediction interpolates the
    // sweep's typical times in log-log and scales past the largest size.
    void predictionByHand() {
        const auto match = [](int iter, int index, double bytes, std::optional<double> start,
                              double dur) {
            analysis::BucketMatch m;
            m.iteration = iter;
            m.index = index;
            m.bytes = bytes;
            m.hookUs = dur;
            if (start) {
                m.backendStartUs = *start;
                m.backendUs = dur;
                m.queuedUs = 1.0;
            }
            return m;
        };
        std::vector<analysis::RankFigures> ranks(2);
        ranks[0].rank = 0;
        ranks[0].agreement.buckets = {match(5, 0, 2000, 100, 50), match(5, 1, 8000, 200, 80),
                                      match(6, 0, 2000, 500, 40), match(6, 1, 8000, 600, 60)};
        ranks[1].rank = 1;
        ranks[1].agreement.buckets = {match(5, 0, 2000, 120, 30), match(5, 1, 8000, 190, 95),
                                      match(6, 0, 2000, std::nullopt, 40),
                                      match(6, 1, 8000, 610, 50)};
        std::vector<analysis::SweepPoint> sweep(2);
        sweep[0].bytes = 1000;
        sweep[0].typicalUs = 10;
        sweep[1].bytes = 4000;
        sweep[1].typicalUs = 40;
        QString why;
        const auto d = analysis::predictDdp(ranks, sweep, analysis::fitLinear(sweep), 0, &why);
        QVERIFY2(d, qPrintable(why));
        QCOMPARE(d->steps, 1); // step 6 lacks rank 1's span of bucket 0
        // bucket 0: rank 1 arrived last (120): own 30, wait 20; bucket 1: rank 0 (200): 80, 10
        QCOMPARE(d->measuredUsPerStep, 110.0);
        QCOMPARE(d->waitUsPerStep, 30.0);
        QCOMPARE(d->measuredMinUs, 110.0);
        QCOMPARE(d->measuredMaxUs, 110.0);
        // 2000 B: 10 us x 4^(1/2) = 20 us; 8000 B: past 4000 B, 40 us x 2 = 80 us
        QCOMPARE(int(d->buckets.size()), 2);
        QVERIFY(std::abs(d->buckets[0].predictedUs - 20.0) < 1e-9);
        QVERIFY(std::abs(d->buckets[1].predictedUs - 80.0) < 1e-9);
        QVERIFY(std::abs(d->predictedUsPerStep - 100.0) < 1e-9);
        QVERIFY(!d->withinRange());
        QVERIFY(std::abs(d->offBy() - (100.0 / 110.0 - 1.0)) < 1e-12);
        QVERIFY(std::abs(d->buckets[0].sweepFraction() - 20.0 / 30.0) < 1e-12);
        // Two cores shared: rank 0 computed on 2 threads through all of bucket 0's own time
        // (120..150), rank 1 on 1 thread for half of it; runnable 1 + 2 + 1 + 0.5 = 4.5, a
        // share of 2 / 4.5, so 20 us alone take 45 us. Bucket 1 (200..280) ran with no compute:
        // 2 threads on 2 cores, a share of 1.
        ranks[0].threads = 2;
        ranks[0].hostCompute = trace::SpanSet::unionOf({{0, 160}});
        ranks[1].hostCompute = trace::SpanSet::unionOf({{135, 150}});
        const auto shared = analysis::predictDdp(ranks, sweep, analysis::fitLinear(sweep), 2, &why);
        QVERIFY2(shared, qPrintable(why));
        QVERIFY(std::abs(shared->buckets[0].cpuShare - 2.0 / 4.5) < 1e-12);
        QVERIFY(std::abs(shared->buckets[0].predictedUs - 45.0) < 1e-9);
        QCOMPARE(shared->buckets[1].cpuShare, 1.0);
        QVERIFY(std::abs(shared->predictedUsPerStep - 125.0) < 1e-9);
        QVERIFY(std::abs(shared->sweepUsPerStep - 100.0) < 1e-9);
        QVERIFY(shared->withinRange() == false && shared->offBy() > 0);
        // Two sizes cannot be fitted: no best case is claimed.
        QVERIFY(!d->fitUsPerStep && !d->buckets[0].fitUs);
        // Without a sweep there is nothing to predict from, and it says so.
        QVERIFY(!analysis::predictDdp(ranks, {}, analysis::fitLinear({}), 0, &why));
        QVERIFY2(why.contains("no timed size"), qPrintable(why));
    }

    void sweepAtWorldSizeTwo() {
        const QString dir = work_.filePath("ws2");
        QDir().mkpath(dir);
        sweep2_ = dir;
        const auto out =
            runRankPool(dir, 2,
                        {"--sweep", "all_reduce,all_gather,reduce_scatter,broadcast",
                         "--sweep-max-bytes", "4194304", "--threads", "1", "--sweep-iters", "21"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        QStringList problems;
        const auto series = inputs::readSweep(dir, &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const auto* ar = seriesOf(series, "all_reduce");
        QVERIFY(ar);
        QCOMPARE(ar->worldSize, 2);
        QCOMPARE(int(ar->points.size()), 20); // 8 B .. 4 MiB, doubling
        QCOMPARE(ar->points.front().bytes, 8.0);
        QCOMPARE(ar->points.back().bytes, 4194304.0);
        QString table;
        for (const auto& p : ar->points) {
            QCOMPARE(int(p.us.size()), 2);
            table += QString("%1 B: %2 us, busbw %3 GB/s\n")
                         .arg(p.bytes)
                         .arg(p.slowestUs)
                         .arg(p.busbwGBps.value_or(-1));
        }
        qInfo().noquote() << table;
        const auto fit = analysis::fitLinear(ar->points);
        QVERIFY2(!fit.refused, qPrintable(fit.reason));
        qInfo("all_reduce ws2: alpha %.1f us, beta %.4g us/B (%.3f GB/s), R^2 %.3f over %.0f..%.0f "
              "B",
              fit.alphaUs, fit.betaUsPerByte, fit.asymptoticGBps(), fit.r2, fit.fromBytes,
              fit.toBytes);
        // Bandwidth rises with size: the three largest sizes move data more than a hundred times
        // faster than the three smallest.
        std::vector<double> bw;
        for (const auto& p : ar->points) {
            bw.push_back(*p.busbwGBps);
        }
        const std::size_t n = bw.size();
        const auto median3 = [](double a, double b, double c) {
            return std::max(std::min(a, b), std::min(std::max(a, b), c));
        };
        const double bottom = median3(bw[0], bw[1], bw[2]);
        const double top = median3(bw[n - 1], bw[n - 2], bw[n - 3]);
        QVERIFY2(top > 100 * bottom, qPrintable(table));
        // How well it flattens, and the fit's R^2, are figures of the machine's load, not
        // pass/fail: a busy moment gave R^2 0.80 where a quiet one gives 0.97
        // (docs/measurement.md). They are printed for the record; the fit must not be refused
        // (above).
        qInfo("from 8x smaller to the largest size the bandwidth gained %.2fx (latency alone: 8x); "
              "R^2 %.3f",
              bw[n - 1] / bw[n - 4], fit.r2);
        QVERIFY(fit.toBytes / fit.fromBytes >= 10);
        if (fit.leftOutFromBytes) {
            qInfo().noquote() << fit.note;
        }
        QVERIFY(fit.alphaUs > 0);
        // Every kind the backend has is measured; one it lacks says so and has no points.
        for (const char* kind : {"all_gather", "broadcast", "reduce_scatter"}) {
            const auto* s = seriesOf(series, kind);
            QVERIFY2(s, kind);
            QVERIFY2(!s->points.empty() || !s->unsupported.isEmpty(), kind);
            QVERIFY2(s->points.empty() || s->unsupported.isEmpty(), kind);
        }
    }

    // Issue 41: a size in a sweep's reasons read "1.04858e+06 bytes"; it is the whole number of
    // bytes. The real ws2 sweep, rank 1's 1 MiB all_reduce taken out and rank 0's 2 MiB left
    // without a timed repetition.
    void reasonsNameSizesInWholeBytes() {
        QVERIFY2(!sweep2_.isEmpty(), "sweepAtWorldSizeTwo runs first");
        QMap<int, QJsonObject> docs;
        for (const int rank : {0, 1}) {
            QFile f(QString("%1/sweep_rank%2.json").arg(sweep2_).arg(rank));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
            QJsonArray kinds = doc["kinds"].toArray();
            for (qsizetype k = 0; k < kinds.size(); ++k) {
                QJsonObject kind = kinds[k].toObject();
                if (kind["kind"].toString() != "all_reduce") {
                    continue;
                }
                QJsonArray sizes;
                for (const QJsonValue v : kind["sizes"].toArray()) {
                    QJsonObject size = v.toObject();
                    const double bytes = size["bytes"].toDouble();
                    if (rank == 1 && bytes == 1048576) {
                        continue;
                    }
                    if (rank == 0 && bytes == 2097152) {
                        size["times_us"] = QJsonArray{};
                    }
                    sizes.append(size);
                }
                kind["sizes"] = sizes;
                kinds[k] = kind;
            }
            doc["kinds"] = kinds;
            docs[rank] = doc;
        }
        QMap<int, results::SweepRecord> records;
        for (auto it = docs.begin(); it != docs.end(); ++it) {
            const results::RankFile f = results::parseRankFile(
                QJsonDocument(it.value()).toJson(), QString("sweep_rank%1.json").arg(it.key()));
            QVERIFY2(f.ok(), qPrintable(f.problem));
            records[it.key()] = f.sweep;
        }
        QStringList problems;
        analysis::mergeSweep(records, &problems);
        QVERIFY2(problems.contains("all_reduce at 1048576 bytes: 1 of 2 ranks reported"),
                 qPrintable(problems.join('\n')));
        QVERIFY2(problems.contains("sweep_rank0.json: all_reduce at 2097152 bytes has no timed "
                                   "iteration"),
                 qPrintable(problems.join('\n')));
    }

    // Each bucket of a traced DDP run predicted from the sweep: the prediction per step is worked
    // out by hand from the sweep's own files (each rank's median repetition per size, the
    // slower rank's, interpolated in log-log at the rank file's bucket sizes), and the verdict
    // (within the measured range or not, and by how much) follows the printed numbers.
    void ddpPredictedFromTheSweep() {
        QVERIFY(!sweep2_.isEmpty());
        const QString ddp = work_.filePath("ddp");
        QDir().mkpath(ddp);
        const auto out = runRankPool(ddp, 2,
                                     {"--params", "3e6", "--iterations", "8", "--warmup", "3",
                                      "--batch-size", "8", "--threads", "1", "--bucket-cap-mb", "4",
                                      "--first-bucket-mb", "1", "--trace", "--trace-steps", "4"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const CliResult r =
            runCli("commprof", {"sweep", "summarize", sweep2_, "--json", "--ddp", ddp});
        const QJsonObject doc = r.json();
        QVERIFY2(doc.contains("ddp"), r.err.constData());
        // size -> the slower rank's median, from the files
        std::map<double, double> typical;
        for (int rank = 0; rank < 2; ++rank) {
            const QJsonObject f = readJsonFile(sweep2_ + QString("/sweep_rank%1.json").arg(rank));
            for (const QJsonValue k : f["kinds"].toArray()) {
                if (k.toObject()["kind"].toString() != "all_reduce") {
                    continue;
                }
                for (const QJsonValue sv : k.toObject()["sizes"].toArray()) {
                    std::vector<double> t;
                    for (const QJsonValue v : sv.toObject()["times_us"].toArray()) {
                        t.push_back(v.toDouble());
                    }
                    std::sort(t.begin(), t.end());
                    const double med = t.size() % 2 ? t[t.size() / 2]
                                                    : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
                    double& slot = typical[sv.toObject()["bytes"].toDouble()];
                    slot = std::max(slot, med);
                }
            }
        }
        const auto at = [&](double bytes) {
            auto hi = typical.lower_bound(bytes);
            if (hi == typical.begin()) {
                return hi->second;
            }
            if (hi == typical.end()) {
                const auto last = std::prev(hi);
                return last->second * bytes / last->first;
            }
            const auto lo = std::prev(hi);
            const double f = std::log(bytes / lo->first) / std::log(hi->first / lo->first);
            return lo->second * std::pow(hi->second / lo->second, f);
        };
        double byHand = 0;
        const QJsonObject rank0 = readJsonFile(ddp + "/rank0.json");
        for (const QJsonValue b : rank0["buckets"].toArray()) {
            if (b.toObject()["iter"].toInt() == 3) {
                byHand += at(b.toObject()["bytes"].toDouble());
            }
        }
        const QJsonObject d = doc["ddp"].toObject();
        const double alone = d["sweep_ms_per_step"].toDouble() * 1000.0;
        const double predicted = d["predicted_ms_per_step"].toDouble() * 1000.0;
        const double measured = d["measured_ms_per_step"].toDouble();
        const double lo = d["measured_min_ms"].toDouble();
        const double hi = d["measured_max_ms"].toDouble();
        QVERIFY2(std::abs(alone - byHand) < 1e-6 * byHand,
                 qPrintable(QString("%1 vs %2").arg(alone).arg(byHand)));
        // Sharing the cores can only slow the sweep's time down.
        QVERIFY(predicted >= alone * (1 - 1e-9));
        QVERIFY(d["steps"].toInt() > 0 && d["steps"].toInt() <= 4);
        QVERIFY(lo > 0 && lo <= measured && measured <= hi);
        QCOMPARE(d["within_range"].toBool(), predicted / 1000.0 >= lo && predicted / 1000.0 <= hi);
        QVERIFY(std::abs(d["off_by"].toDouble() - (predicted / 1000.0 / measured - 1.0)) < 1e-9);
        QVERIFY(d["queued_ms_per_step"].toDouble() >= 0 && d["wait_ms_per_step"].toDouble() >= 0);
        for (const QJsonValue b : d["buckets"].toArray()) {
            const QJsonObject o = b.toObject();
            QVERIFY(std::abs(o["fraction_of_sweep_bandwidth"].toDouble() -
                             o["sweep_us"].toDouble() / o["measured_us"].toDouble()) < 1e-9);
            QVERIFY(std::abs(o["predicted_us"].toDouble() -
                             o["sweep_us"].toDouble() / o["cpu_share"].toDouble()) < 1e-9);
            QVERIFY(o["cpu_share"].toDouble() > 0 && o["cpu_share"].toDouble() <= 1);
        }
        // The text says it in words.
        const CliResult text = runCli("commprof", {"sweep", "summarize", sweep2_, "--ddp", ddp});
        QVERIFY(text.out.contains("off by"));
        QVERIFY(text.out.contains("of the sweep's bandwidth at this size"));
        qInfo().noquote() << text.out.mid(text.out.indexOf("DDP all-reduce"));
    }

    // At three ranks the factors differ from 1: busbw checked against algbw times the factor
    // worked out by hand, on real measurements.
    void busbwAtWorldSizeThree() {
        const QString dir = work_.filePath("ws3");
        QDir().mkpath(dir);
        const auto out = runRankPool(dir, 3,
                                     {"--sweep", "all_reduce,all_gather", "--sweep-max-bytes",
                                      "65536", "--threads", "1", "--sweep-iters", "3"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const auto series = inputs::readSweep(dir);
        const auto* ar = seriesOf(series, "all_reduce");
        const auto* ag = seriesOf(series, "all_gather");
        QVERIFY(ar && ag);
        QCOMPARE(ar->worldSize, 3);
        QVERIFY(!ar->points.empty() && !ag->points.empty());
        for (const auto& p : ar->points) {
            QCOMPARE(int(p.us.size()), 3);
            const double algbw = p.bytes / (p.slowestUs / 1e6) / 1e9;
            QVERIFY(std::abs(p.algbwGBps - algbw) < 1e-9 * algbw);
            QVERIFY(std::abs(*p.busbwGBps - algbw * 4.0 / 3.0) < 1e-9 * algbw);
        }
        for (const auto& p : ag->points) {
            // Sizes are the gathered output: a multiple of 3 ranks x 4-byte floats.
            QCOMPARE(std::fmod(p.bytes, 12.0), 0.0);
            QVERIFY(std::abs(*p.busbwGBps - p.algbwGBps * 2.0 / 3.0) < 1e-9 * p.algbwGBps);
        }
    }

    void badSweepFlagsAreUsageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("unknown kind")
            << QStringList{"--sweep", "all_reduce,alltoall"} << "alltoall";
        QTest::newRow("tiny max") << QStringList{"--sweep", "all_reduce", "--sweep-max-bytes", "4"}
                                  << "--sweep-max-bytes";
        QTest::newRow("no iterations")
            << QStringList{"--sweep", "all_reduce", "--sweep-iters", "0"} << "--sweep-iters";
    }
    void badSweepFlagsAreUsageErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        QProcess p;
        p.start(rankBinary(), args);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains(named.toUtf8()));
    }
};

QTEST_GUILESS_MAIN(TstSweep)
#include "tst_sweep.moc"
