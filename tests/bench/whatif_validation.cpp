// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark, outside ctest: `commprof trace whatif` against Python DDP jobs it did not see, read
// from the stored corpus (tests/data/whatif_corpus, recorded once by
// tests/bench/record_whatif_corpus.py: 8 model families, gloo on a CPU, 2 ranks, over loopback,
// 2gbit and 500mbit, and 2 families traced by torch 2.6's Kineto). Deterministic: no job is run,
// the same corpus and the same commprof print the same figures.
//
// Each job trained its variants (5 caps with allreduce, fp16_compress at 25 MiB) round-robin
// inside one run (this machine drifts by up to 30 % between runs, far more than a cap moves a
// step), timed their unprofiled steps in interleaved rounds, then traced each. Every variant's
// step is predicted from every other variant's trace of the same job, as a ratio: the scenario's
// step over the trace's replayed step, times the traced variant's unprofiled median (a trace
// carries the profiler's overhead). "No change" predicts the traced variant's own median.
//
// Per family and per half of the declared split (develop / judge, in the manifest) it prints:
//   - caps (allreduce to allreduce) and hooks (one side fp16_compress): the model's MAPE beside
//     "no change"'s on the same ratios;
//   - the replay's error: each trace's replayed step against the trace's own median step;
//   - the stated 90 % interval's coverage of the measured step (every cross prediction);
//   - fp16's direction where the measured move exceeds 5 %, every pair with one side fp16 (a
//     predicted move of exactly 0 is no direction; bf16_compress: DDP refuses it on a CPU, the
//     manifest says so);
//   - links: each 2gbit variant from the same variant's 500mbit trace at --bandwidth-x 4 and back
//     at 0.25, within 15 % or not (the two links are two jobs, a drift apart: "no change" across
//     the links is printed beside);
//   - the noise floor: where a job was run again (timed steps only), how far the same ratios
//     moved between the two runs.
// Run: build/bin/whatif_validation [--corpus DIR] [--jobs] (docs/measurement.md).

#include "whatif_corpus.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QTextStream>

#include <cstdio>
#include <map>

namespace {

using namespace whatif_corpus;

// Sums of one group's figures.
struct Figures {
    double capErr = 0, capNone = 0;
    int caps = 0;
    double hookErr = 0, hookNone = 0;
    int hooks = 0;
    std::vector<double> replay; // |replayed / recorded - 1| of each trace
    int covered = 0, predictions = 0;
    int directionRight = 0, directionJudged = 0;
    double linkErr = 0, linkNone = 0;
    int linkWithin = 0, links = 0;
    // The recommendation against the recorded variant: measured no worse than by its interval
    // (held) of those judged; kept the recorded settings; advised a setting nobody measured.
    int adviceHeld = 0, adviceJudged = 0, adviceKept = 0, adviceUnmeasured = 0;
    int failed = 0; // what-ifs that exited non-zero

    void add(const Figures& o) {
        capErr += o.capErr, capNone += o.capNone, caps += o.caps;
        hookErr += o.hookErr, hookNone += o.hookNone, hooks += o.hooks;
        replay.insert(replay.end(), o.replay.begin(), o.replay.end());
        covered += o.covered, predictions += o.predictions;
        directionRight += o.directionRight, directionJudged += o.directionJudged;
        linkErr += o.linkErr, linkNone += o.linkNone, linkWithin += o.linkWithin, links += o.links;
        adviceHeld += o.adviceHeld, adviceJudged += o.adviceJudged, adviceKept += o.adviceKept;
        adviceUnmeasured += o.adviceUnmeasured;
        failed += o.failed;
    }
};

QString pct(double sum, int n) {
    return n ? QString::asprintf("%5.1f", 100 * sum / n) : "    -";
}

QString row(const QString& name, const Figures& f) {
    const int within5 =
        int(std::count_if(f.replay.begin(), f.replay.end(), [](double e) { return e <= 0.05; }));
    const double worst = f.replay.empty() ? 0 : *std::max_element(f.replay.begin(), f.replay.end());
    return QString("%1 %2 %3 %4 | %5 %6 %7 | %8 %9 %10 | %11/%12 %13 | %14/%15 | %16 %17 %18/%19 "
                   "| %21 | %20")
        .arg(name, -22)
        .arg(pct(f.capErr, f.caps))
        .arg(pct(f.capNone, f.caps))
        .arg(f.caps, 4)
        .arg(pct(f.hookErr, f.hooks))
        .arg(pct(f.hookNone, f.hooks))
        .arg(f.hooks, 4)
        .arg(QString::asprintf("%5.1f", 100 * median(f.replay)))
        .arg(QString::asprintf("%5.1f", 100 * worst))
        .arg(QString("%1/%2").arg(within5).arg(f.replay.size()), 6)
        .arg(f.covered, 4)
        .arg(f.predictions, -4)
        .arg(f.predictions ? QString::asprintf("%3.0f %%", 100.0 * f.covered / f.predictions)
                           : "  -")
        .arg(f.directionRight, 3)
        .arg(f.directionJudged, -3)
        .arg(pct(f.linkErr, f.links))
        .arg(pct(f.linkNone, f.links))
        .arg(f.linkWithin, 3)
        .arg(f.links, -3)
        .arg(f.failed)
        .arg(QString("%1/%2 %3 %4")
                 .arg(f.adviceHeld, 3)
                 .arg(f.adviceJudged, -3)
                 .arg(f.adviceKept, 3)
                 .arg(f.adviceUnmeasured, 3),
             -17);
}

class Bench {
public:
    explicit Bench(Corpus c) : c_(std::move(c)) {}

    // The what-if of one variant's traces (cached: each is read once per --bandwidth-x).
    const QJsonObject& whatif(const Job& j, const Variant& v, const QString& bandwidthX = {}) {
        const QString key = j.dir + "/" + v.label + "@" + bandwidthX;
        auto it = cache_.find(key);
        if (it == cache_.end()) {
            const CliResult r = whatIf(
                c_, j, v,
                bandwidthX.isEmpty() ? QStringList{} : QStringList{"--bandwidth-x", bandwidthX});
            if (r.exitCode != 0) {
                std::fprintf(stderr, "%s: exit %d: %s\n", qPrintable(key), r.exitCode,
                             r.err.constData());
            }
            it = cache_.emplace(key, r.exitCode == 0 ? r.json() : QJsonObject{}).first;
        }
        return it->second;
    }

    // One job's cross predictions, replays, coverage and fp16 directions.
    Figures job(const Job& j, bool verbose) {
        Figures f;
        for (const Variant& from : j.variants) {
            const QJsonObject& w = whatif(j, from);
            if (w.isEmpty()) {
                ++f.failed;
                continue;
            }
            const QJsonObject rec = w["recorded"].toObject();
            const double replayed = rec["replayed_step_ms"].toDouble();
            f.replay.push_back(std::abs(replayed / rec["step_ms"].toDouble() - 1));
            if (verbose) {
                std::printf("  %-36s traced %7.1f ms, replayed %7.1f ms (%+5.1f %%), unprofiled "
                            "%7.1f ms, %d buckets\n",
                            qPrintable(j.dir + "/" + from.label), rec["step_ms"].toDouble(),
                            replayed, 100 * (replayed / rec["step_ms"].toDouble() - 1),
                            from.medianMs, rec["buckets"].toInt());
            }
            judgeAdvice(j, from, w, replayed, verbose, f);
            for (const Variant& to : j.variants) {
                if (to.label == from.label) {
                    continue;
                }
                const QJsonObject s = scenarioFor(w, to.capMb, to.hook);
                const double p = from.medianMs * s["step_ms"].toDouble() / replayed;
                const double interval = from.medianMs * s["uncertainty_ms"].toDouble() / replayed;
                const double err = std::abs(p - to.medianMs) / to.medianMs;
                const double none = std::abs(from.medianMs - to.medianMs) / to.medianMs;
                f.covered += std::abs(p - to.medianMs) <= interval;
                ++f.predictions;
                if (from.hook == to.hook && from.hook == "allreduce") {
                    f.capErr += err, f.capNone += none, ++f.caps;
                } else if (from.hook != to.hook) {
                    f.hookErr += err, f.hookNone += none, ++f.hooks;
                    const double moved = to.medianMs / from.medianMs - 1;
                    if (std::abs(moved) > 0.05) {
                        // "No change" predicted is no direction: right only with the sign.
                        const double said = p / from.medianMs - 1;
                        const bool right = std::abs(said) > 1e-6 && (said > 0) == (moved > 0);
                        f.directionRight += right;
                        ++f.directionJudged;
                        if (verbose) {
                            std::printf("    %s -> %s: measured %+5.1f %%, predicted %+5.1f %% "
                                        "(%s)\n",
                                        qPrintable(from.label), qPrintable(to.label), 100 * moved,
                                        100 * (p / from.medianMs - 1), right ? "right" : "wrong");
                        }
                    }
                }
            }
        }
        return f;
    }

    // The trace's recommendation against what the job measured: the recommended variant's
    // median no worse than the traced variant's by more than the recommendation's interval
    // (scaled as every prediction is, from the replay to the unprofiled median).
    static void judgeAdvice(const Job& j, const Variant& from, const QJsonObject& w,
                            double replayed, bool verbose, Figures& f) {
        const QJsonObject rec = w["recommendation"].toObject();
        if (rec["keep"].toBool()) {
            ++f.adviceKept;
            return;
        }
        const auto to = std::find_if(j.variants.begin(), j.variants.end(), [&](const Variant& v) {
            return v.capMb == rec["bucket_cap_mb"].toDouble() && v.hook == rec["hook"].toString();
        });
        if (to == j.variants.end()) {
            ++f.adviceUnmeasured;
            return;
        }
        const double interval = from.medianMs * rec["uncertainty_ms"].toDouble() / replayed;
        const bool held = to->medianMs - from.medianMs <= interval;
        f.adviceHeld += held;
        ++f.adviceJudged;
        if (verbose) {
            std::printf("    advice %s -> %s: measured %+5.1f ms, interval %.1f ms (%s)\n",
                        qPrintable(from.label), qPrintable(to->label), to->medianMs - from.medianMs,
                        interval, held ? "held" : "worse");
        }
    }

    // Each variant over `to` predicted from the same variant's trace over `from`.
    Figures link(const Job& from, const Job& to, double bandwidthX, bool verbose) {
        Figures f;
        for (const Variant& vf : from.variants) {
            const auto vt = std::find_if(to.variants.begin(), to.variants.end(),
                                         [&](const Variant& v) { return v.label == vf.label; });
            const QJsonObject& w = whatif(from, vf, QString::number(bandwidthX));
            if (vt == to.variants.end() || w.isEmpty()) {
                ++f.failed;
                continue;
            }
            const double p = vf.medianMs * scenarioFor(w, vf.capMb, vf.hook)["step_ms"].toDouble() /
                             w["recorded"]["replayed_step_ms"].toDouble();
            const double err = std::abs(p - vt->medianMs) / vt->medianMs;
            f.linkErr += err;
            f.linkNone += std::abs(vf.medianMs - vt->medianMs) / vt->medianMs;
            f.linkWithin += err <= 0.15;
            ++f.links;
            if (verbose) {
                std::printf("  %-36s from %s x%g: predicted %7.1f ms, measured %7.1f ms "
                            "(%+5.1f %%)\n",
                            qPrintable(to.dir + "/" + vt->label), qPrintable(from.link), bandwidthX,
                            p, vt->medianMs, 100 * (p / vt->medianMs - 1));
            }
        }
        return f;
    }

    const Corpus& corpus() const { return c_; }

private:
    Corpus c_;
    std::map<QString, QJsonObject> cache_;
};

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QString dir = defaultDir();
    bool verbose = false;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == "--corpus" && i + 1 < args.size()) {
            dir = args[++i];
        } else if (args[i] == "--jobs") {
            verbose = true;
        } else {
            std::fprintf(stderr, "usage: whatif_validation [--corpus DIR] [--jobs]\n");
            return 2;
        }
    }
    Bench bench(read(dir));
    const Corpus& c = bench.corpus();
    if (!c.error.isEmpty()) {
        std::fprintf(stderr, "%s\n", qPrintable(c.error));
        return 2;
    }
    for (const QString& p : problems(c)) {
        std::fprintf(stderr, "corpus: %s\n", qPrintable(p));
    }
    std::map<QString, Figures> byFamily, byHalf, byTorch;
    for (const Job& j : c.jobs) {
        if (!j.repeatOf.isEmpty()) {
            continue; // a repetition's ratios are the noise floor, below
        }
        if (verbose) {
            std::printf("%s (torch %s, load %s)\n", qPrintable(j.dir), qPrintable(j.torch),
                        qPrintable(j.loadAverage));
        }
        const Figures f = bench.job(j, verbose);
        byFamily[j.family].add(f);
        byHalf[j.half].add(f);
        byTorch["torch " + j.torch + (j.kineto ? " (Kineto)" : " (legacy)")].add(f);
    }
    // Links: the two shaped links of one family predict each other (loopback has no rate).
    for (const Job& a : c.jobs) {
        for (const Job& b : c.jobs) {
            if (a.family == b.family && a.torch == b.torch && a.link == "500mbit" &&
                b.link == "2gbit" && a.repeatOf.isEmpty() && b.repeatOf.isEmpty()) {
                for (const auto& [from, to, k] : {std::tuple{&a, &b, 4.0}, {&b, &a, 0.25}}) {
                    const Figures f = bench.link(*from, *to, k, verbose);
                    byFamily[a.family].add(f);
                    byHalf[a.half].add(f);
                    byTorch["torch " + a.torch + (a.kineto ? " (Kineto)" : " (legacy)")].add(f);
                }
            }
        }
    }
    const QJsonObject m = c.manifest;
    std::printf("\nwhat-if validation over %s: %d jobs (%s)\n", qPrintable(dir), int(c.jobs.size()),
                qPrintable(m["description"].toString()));
    std::printf("MAPE in %%, model beside \"no change\" on the same ratios; replay error "
                "|replayed/traced - 1| median, worst, within 5 %%; coverage of the 90 %% "
                "interval; fp16 direction right/judged (moves > 5 %%); links: MAPE, \"no "
                "change\", within 15 %%; advice: the recommendation measured no worse than the "
                "traced variant by more than its interval / of those judged, kept the recorded "
                "settings, advised a setting not measured; what-ifs that failed\n\n");
    const QString head = QString("%1 %2 %3 %4 | %5 %6 %7 | %8 %9 %10 | %11 | %12 | %13 | %15 | %14")
                             .arg("", -22)
                             .arg("caps", 5)
                             .arg("none", 5)
                             .arg("n", 4)
                             .arg("hooks", 5)
                             .arg("none", 5)
                             .arg("n", 4)
                             .arg("repl", 5)
                             .arg("worst", 5)
                             .arg("<=5%", 6)
                             .arg("coverage", 15)
                             .arg("fp16", 7)
                             .arg("links  none within", 22)
                             .arg("failed")
                             .arg("advice held kept ?", -17);
    std::printf("%s\n", qPrintable(head));
    for (const QString& half : {QString("develop"), QString("judge")}) {
        for (const QJsonValue fam : m["split"][half].toArray()) {
            std::printf("%s\n", qPrintable(row(fam.toString() + " (" + half + ")",
                                               byFamily[fam.toString()])));
        }
    }
    std::printf("\n");
    for (const auto& [half, f] : byHalf) {
        std::printf("%s\n", qPrintable(row("half " + half, f)));
    }
    for (const auto& [torch, f] : byTorch) {
        std::printf("%s\n", qPrintable(row(torch, f)));
    }
    // The noise floor: the same ratios (a setting's median over another's) measured again in a
    // second run of the same job. No prediction from one run can be expected to come closer to
    // the other run than this.
    std::map<QString, std::pair<double, int>> floor;
    for (const Job& r : c.jobs) {
        const auto o = std::find_if(c.jobs.begin(), c.jobs.end(),
                                    [&](const Job& j) { return j.dir == r.repeatOf; });
        if (r.repeatOf.isEmpty() || o == c.jobs.end() || o->variants.size() != r.variants.size()) {
            continue;
        }
        for (std::size_t f = 0; f < r.variants.size(); ++f) {
            for (std::size_t t = 0; t < r.variants.size(); ++t) {
                if (f == t) {
                    continue;
                }
                const double first = o->variants[t].medianMs / o->variants[f].medianMs;
                const double again = r.variants[t].medianMs / r.variants[f].medianMs;
                for (const QString& key : {o->family, "half " + o->half}) {
                    floor[key].first += std::abs(again - first) / first;
                    ++floor[key].second;
                }
            }
        }
    }
    if (!floor.empty()) {
        std::printf("\nthe same ratios measured in a second run (%s), MAPE between the runs:\n",
                    "repeat_of in the manifest");
        for (const auto& [key, sum] : floor) {
            std::printf("%-22s %5.1f %% over %d ratios\n", qPrintable(key),
                        100 * sum.first / sum.second, sum.second);
        }
    }
    std::printf("\nbf16_compress: %s\n",
                qPrintable(m["hooks_unavailable"]["bf16_compress"].toString("not recorded")));
    return 0;
}
