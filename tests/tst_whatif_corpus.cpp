// SPDX-License-Identifier: GPL-3.0-or-later
// The built `commprof trace whatif` on the stored validation corpus (tests/data/whatif_corpus:
// Python DDP jobs of 8 model families over 3 links, recorded once by
// tests/bench/record_whatif_corpus.py). Only what is deterministic is judged here; the figures
// that measure the model (MAPE, coverage, links) are tests/bench/whatif_validation's to print.
//
//   - the manifest is complete (families, links, caps, hooks, the split, every file at its size,
//     each stated median its samples'), and a manifest with a gap planted is caught;
//   - every stored trace replays within 5 % of its own recorded step, that step checked against
//     the median ProfilerStep span read from the gzip traces here with zlib and Qt's JSON;
//   - the recorded gradient bytes are 4 bytes per parameter as torch counted them (float32),
//     for the legacy traces (from params.json) and the torch 2.6 Kineto traces, read without
//     --params (sizes from the collectives' Input Dims);
//   - fp16's direction at 25 MiB wherever the job measured a move beyond 5 %;
//   - planted faults: a truncated gzip trace, a missing rank, another job's params.json.

#include "gzip_files.h"
#include "whatif_corpus.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace whatif_corpus;

namespace {

// The trace variants whose replay the model misses by more than 5 % (with the corpus's own
// hook calibration): QEXPECT_FAIL, never a looser bound. A row that starts passing fails as
// XPASS, so whoever fixes the model takes it off this list.
const QSet<QString> kReplayMisses{
    "torch1.13/2gbit/embbag/cap0.25_allreduce",
    "torch1.13/2gbit/resnet18/cap0.25_allreduce",
    "torch1.13/2gbit/resnet18/cap10_allreduce",
    "torch1.13/2gbit/resnet18/cap1_allreduce",
    "torch1.13/2gbit/resnet18/cap4_allreduce",
    "torch1.13/2gbit/transformer/cap4_allreduce",
    "torch1.13/500mbit/gpt/cap1_allreduce",
    "torch1.13/500mbit/mobilenet_v2/cap0.25_allreduce",
    "torch1.13/500mbit/resnet18/cap1_allreduce",
    "torch1.13/500mbit/transformer/cap0.25_allreduce",
    "torch1.13/500mbit/vit/cap4_allreduce",
    "torch1.13/loopback/embbag/cap10_allreduce",
    "torch1.13/loopback/gpt/cap0.25_allreduce",
    "torch1.13/loopback/gpt/cap1_allreduce",
    "torch1.13/loopback/mobilenet_v2/cap25_fp16_compress",
    "torch1.13/loopback/resnet18/cap25_allreduce",
    "torch1.13/loopback/transformer/cap10_allreduce",
    "torch1.13/loopback/transformer/cap25_fp16_compress",
    "torch2.6/loopback/transformer/cap25_fp16_compress",
};

// The jobs where the model predicts fp16_compress at 25 MiB moving the step the wrong way
// from the 25 MiB allreduce trace, or "no change" (the trace cannot tell): QEXPECT_FAIL, as above.
const QSet<QString> kFp16DirectionMisses{
    "torch1.13/2gbit/convnet",       "torch1.13/2gbit/embbag",         "torch1.13/2gbit/gpt",
    "torch1.13/2gbit/resnet18",      "torch1.13/2gbit/transformer",    "torch1.13/2gbit/vit",
    "torch1.13/500mbit/convnet",     "torch1.13/500mbit/embbag",       "torch1.13/500mbit/gpt",
    "torch1.13/500mbit/mlp",         "torch1.13/500mbit/mobilenet_v2", "torch1.13/500mbit/resnet18",
    "torch1.13/500mbit/transformer", "torch1.13/500mbit/vit",
};

// The median of every rank's ProfilerStep#N spans, read from the traces with zlib and Qt's JSON
// (not commprof's reader).
double profilerStepMedianMs(const QString& dir) {
    std::vector<double> spans;
    for (const QString& name : QDir(dir).entryList({"trace_rank*.json.gz"})) {
        const QJsonDocument doc = QJsonDocument::fromJson(gunzip(dir + "/" + name));
        const QJsonArray events =
            doc.isArray() ? doc.array() : doc.object()["traceEvents"].toArray();
        for (const QJsonValue e : events) {
            if (e["ph"].toString() == "X" && e["name"].toString().startsWith("ProfilerStep#")) {
                spans.push_back(e["dur"].toDouble() / 1000);
            }
        }
    }
    return median(spans);
}

// The bytes of a job's buckets, to the byte (a bucket's bytes may be written as 23113727.999...).
qint64 sumOf(const QJsonArray& a) {
    double s = 0;
    for (const QJsonValue v : a) {
        s += v.toDouble();
    }
    return std::llround(s);
}

} // namespace

class TstWhatIfCorpus : public QObject {
    Q_OBJECT
    Corpus corpus_;

    const Job* jobAt(const QString& dir) const {
        for (const Job& j : corpus_.jobs) {
            if (j.dir == dir) {
                return &j;
            }
        }
        return nullptr;
    }

private slots:
    void initTestCase() {
        corpus_ = read();
        QVERIFY2(corpus_.error.isEmpty(), qPrintable(corpus_.error));
        QVERIFY(!corpus_.jobs.empty());
    }

    void manifestIsComplete() {
        const QStringList gaps = problems(corpus_);
        QVERIFY2(gaps.isEmpty(), qPrintable(gaps.join('\n')));
        // Independent of problems(): the families and links counted here from the jobs.
        QSet<QString> families, links, kineto;
        for (const Job& j : corpus_.jobs) {
            families.insert(j.family);
            links.insert(j.link);
            if (j.kineto) {
                QVERIFY2(j.torch.startsWith("2."), qPrintable(j.dir + ": " + j.torch));
                kineto.insert(j.family);
            }
        }
        QCOMPARE(families.size(), 8);
        QCOMPARE(links, (QSet<QString>{"loopback", "2gbit", "500mbit"}));
        QVERIFY(kineto.size() >= 2);
    }

    // Each gap problems() guards, planted in a copy of the manifest read into memory.
    void manifestGapsAreNamed_data() {
        QTest::addColumn<QString>("plant");
        QTest::addColumn<QString>("named");
        QTest::newRow("a family's 500mbit job gone") << "drop"
                                                     << "over 500mbit";
        QTest::newRow("a variant gone") << "variant"
                                        << "no variant 0.25 MiB allreduce";
        QTest::newRow("a sample altered") << "sample"
                                          << "samples' median";
        QTest::newRow("a file's size wrong") << "size"
                                             << "listed at";
        QTest::newRow("a family in both halves") << "split"
                                                 << "in both halves";
        QTest::newRow("params.json beside a Kineto trace") << "kineto"
                                                           << "with params.json";
    }

    void manifestGapsAreNamed() {
        QFETCH(QString, plant);
        QFETCH(QString, named);
        Corpus c = corpus_;
        Job& first = c.jobs.front();
        if (plant == "drop") {
            c.jobs.erase(std::remove_if(c.jobs.begin(), c.jobs.end(),
                                        [](const Job& j) {
                                            return j.family == "embbag" && j.link == "500mbit";
                                        }),
                         c.jobs.end());
        } else if (plant == "variant") {
            first.variants.erase(first.variants.begin()); // the 0.25 MiB one, recorded first
        } else if (plant == "sample") {
            for (double& ms : first.variants.back().samplesMs) {
                ms *= 2; // the stated median stays: it is no longer the samples'
            }
        } else if (plant == "size") {
            first.files[first.files.begin().key()] = first.files.begin().value().toInteger() + 1;
        } else if (plant == "split") {
            QJsonObject split = c.manifest["split"].toObject();
            QJsonArray judge = split["judge"].toArray();
            judge.append(split["develop"].toArray().first());
            split["judge"] = judge;
            c.manifest["split"] = split;
        } else if (plant == "repeat") {
            const auto r = std::find_if(c.jobs.begin(), c.jobs.end(),
                                        [](const Job& j) { return !j.repeatOf.isEmpty(); });
            QVERIFY2(r != c.jobs.end(), "the corpus has no repetition");
            r->repeatOf += "_gone";
        } else if (plant == "kineto") {
            const auto k =
                std::find_if(c.jobs.begin(), c.jobs.end(), [](const Job& j) { return j.kineto; });
            QVERIFY2(k != c.jobs.end(), "the corpus has no Kineto job");
            k->files[k->dir + "/" + k->variants.front().label + "/params.json"] = 0;
        }
        const QString said = problems(c).join('\n');
        QVERIFY2(said.contains(named), qPrintable("expected \"" + named + "\" in:\n" + said));
    }

    void replaysItsOwnStep_data() {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("label");
        for (const Job& j : corpus_.jobs) {
            for (const Variant& v : j.repeatOf.isEmpty() ? j.variants : std::vector<Variant>{}) {
                QTest::newRow(qPrintable(j.dir + "/" + v.label)) << j.dir << v.label;
            }
        }
    }

    void replaysItsOwnStep() {
        QFETCH(QString, dir);
        QFETCH(QString, label);
        const Job& j = *jobAt(dir);
        const Variant& v = *std::find_if(j.variants.begin(), j.variants.end(),
                                         [&](const Variant& x) { return x.label == label; });
        const CliResult r = whatIf(corpus_, j, v);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject rec = r.json()["recorded"].toObject();
        QVERIFY2(!r.json()["incomplete"].toBool(), r.err.constData());
        const double own = profilerStepMedianMs(traceDir(corpus_, j, v));
        QVERIFY(own > 0);
        QVERIFY2(std::abs(rec["step_ms"].toDouble() / own - 1) < 1e-3,
                 qPrintable(QString("recorded step %1 ms, the traces' ProfilerStep median %2 ms")
                                .arg(rec["step_ms"].toDouble())
                                .arg(own)));
        // Every gradient is float32: 4 bytes per parameter torch counted, however they are
        // bucketed (legacy: params.json; Kineto: the all-reduces' Input Dims, no --params).
        QCOMPARE(sumOf(rec["bucket_bytes"].toArray()), 4 * j.params);
        const double error = rec["replayed_step_ms"].toDouble() / own - 1;
        if (kReplayMisses.contains(dir + "/" + label)) {
            QEXPECT_FAIL(
                "", qPrintable("the model replays " + dir + "/" + label + " beyond 5 % (issue 49)"),
                Continue);
        }
        QVERIFY2(std::abs(error) <= 0.05,
                 qPrintable(QString("replayed %1 ms against the traces' %2 ms (%3 %)")
                                .arg(rec["replayed_step_ms"].toDouble())
                                .arg(own)
                                .arg(100 * error, 0, 'f', 1)));
    }

    // A develop-half job whose recorded median step is far from the sum of its phases' medians
    // (convnet over 2gbit, 0.25 MiB: 96 ms apart, at load 8-9): a replay of those medians
    // misses its step by -18 %. Each traced step replayed on its own and the median of those
    // taken, as the recorded median is taken over whole steps, replays it within 5 %; the
    // scenario at the recorded settings is that same median.
    void eachTracedStepIsReplayed() {
        const QString dir = "torch1.13/2gbit/convnet", label = "cap0.25_allreduce";
        const Job& j = *jobAt(dir);
        QVERIFY(j.half == "develop");
        const Variant& v = *std::find_if(j.variants.begin(), j.variants.end(),
                                         [&](const Variant& x) { return x.label == label; });
        const CliResult r = whatIf(corpus_, j, v);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const double replayed = r.json()["recorded"].toObject()["replayed_step_ms"].toDouble();
        const double own = profilerStepMedianMs(traceDir(corpus_, j, v));
        QVERIFY2(std::abs(replayed / own - 1) <= 0.05,
                 qPrintable(QString("replayed %1 ms, the traces' ProfilerStep median %2 ms")
                                .arg(replayed)
                                .arg(own)));
        QCOMPARE(scenarioFor(r.json(), 0.25, "allreduce")["step_ms"].toDouble(), replayed);
    }

    // fp16_compress at 25 MiB predicted from the 25 MiB allreduce trace moves the step the way
    // the job measured it, wherever it measured a move beyond 5 % (medians from the manifest).
    void fp16Direction_data() {
        QTest::addColumn<QString>("dir");
        int judged = 0;
        for (const Job& j : corpus_.jobs) {
            const auto at = [&](const QString& hook) {
                return std::find_if(j.variants.begin(), j.variants.end(), [&](const Variant& v) {
                    return v.capMb == 25 && v.hook == hook;
                });
            };
            if (j.repeatOf.isEmpty() &&
                std::abs(at("fp16_compress")->medianMs / at("allreduce")->medianMs - 1) > 0.05) {
                QTest::newRow(qPrintable(j.dir)) << j.dir;
                ++judged;
            }
        }
        QVERIFY(judged >= 8);
    }

    void fp16Direction() {
        QFETCH(QString, dir);
        const Job& j = *jobAt(dir);
        const auto at = [&](const QString& hook) {
            return *std::find_if(j.variants.begin(), j.variants.end(),
                                 [&](const Variant& v) { return v.capMb == 25 && v.hook == hook; });
        };
        const Variant plain = at("allreduce"), fp16 = at("fp16_compress");
        const CliResult r = whatIf(corpus_, j, plain);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const double replayed = r.json()["recorded"].toObject()["replayed_step_ms"].toDouble();
        const double said =
            scenarioFor(r.json(), 25, "fp16_compress")["step_ms"].toDouble() / replayed - 1;
        const double measured = fp16.medianMs / plain.medianMs - 1;
        if (kFp16DirectionMisses.contains(dir)) {
            QEXPECT_FAIL("", qPrintable("the model gets fp16's direction wrong on " + dir),
                         Continue);
        }
        QVERIFY2(std::abs(said) > 1e-6 && (said > 0) == (measured > 0),
                 qPrintable(QString("measured %1 %, predicted %2 %")
                                .arg(100 * measured, 0, 'f', 1)
                                .arg(100 * said, 0, 'f', 1)));
    }

    // The torch 2.6 traces carry no params.json and are read with nothing but the traces.
    void kinetoTracesNeedNoParams() {
        int read = 0;
        for (const Job& j : corpus_.jobs) {
            if (!j.kineto) {
                continue;
            }
            for (const Variant& v : j.variants) {
                const QString traces = traceDir(corpus_, j, v);
                QVERIFY2(!QFile::exists(traces + "/params.json"), qPrintable(traces));
                const CliResult r =
                    runCli("commprof", QStringList{"trace", "whatif", traces, "--json"});
                QVERIFY2(r.exitCode == 0, qPrintable(traces + ": " + QString(r.err)));
                QCOMPARE(sumOf(r.json()["recorded"].toObject()["bucket_bytes"].toArray()),
                         4 * j.params);
                ++read;
            }
        }
        QVERIFY(read >= 2 * 6);
    }

    // A latency the trace's own sizes pin down is not carried to buckets smaller than any it
    // timed: the GPT's 4 MiB trace over 2gbit fits one from three sizes of 1 MiB and more, and
    // its 0.25 MiB scenario (buckets below every timed one) says "no change" or holds the
    // replayed step inside its interval, as it holds the 0.25 MiB setting's measured step.
    void pinnedLatencyIsNotExtrapolated() {
        const Job& j = *jobAt("torch1.13/2gbit/gpt");
        const Variant v = *std::find_if(j.variants.begin(), j.variants.end(), [](const Variant& x) {
            return x.capMb == 4 && x.hook == "allreduce";
        });
        const CliResult r = whatIf(corpus_, j, v);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject w = r.json();
        QVERIFY2(w["cost"]["method"].toString().contains("sizes (latency"),
                 qPrintable(w["cost"]["method"].toString()));
        double smallest = 0;
        for (const QJsonValue b : w["recorded"]["bucket_bytes"].toArray()) {
            smallest = smallest == 0 ? b.toDouble() : std::min(smallest, b.toDouble());
        }
        QVERIFY(0.25 * 1024 * 1024 < smallest);
        const QJsonObject s = scenarioFor(w, 0.25, "allreduce");
        const double replayed = w["recorded"]["replayed_step_ms"].toDouble();
        qInfo("0.25 MiB: %.1f ms (model %.1f) +- %.1f, replayed %.1f ms, no change %d",
              s["step_ms"].toDouble(), s["model_step_ms"].toDouble(),
              s["uncertainty_ms"].toDouble(), replayed, s["no_change"].toBool());
        QVERIFY(s["no_change"].toBool() ||
                std::abs(s["step_ms"].toDouble() - replayed) <= s["uncertainty_ms"].toDouble());
    }

    // Faults planted in a copy of one stored job's traces are flagged, never replayed as whole.
    void plantedFaultsAreCaught_data() {
        QTest::addColumn<QString>("job");
        QTest::addColumn<QString>("plant");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("said");
        const QString legacy = "torch1.13/loopback/mlp", kineto = "torch2.6/loopback/gpt";
        QTest::newRow("legacy, intact copy") << legacy << "none" << 0 << "";
        QTest::newRow("legacy, rank 1's gzip cut in half")
            << legacy << "truncate" << 0 << "trace_rank1.json.gz";
        QTest::newRow("legacy, another model's params.json") << legacy << "params" << 2 << "params";
        QTest::newRow("Kineto, intact copy") << kineto << "none" << 0 << "";
        QTest::newRow("Kineto, rank 1's gzip cut in half")
            << kineto << "truncate" << 0 << "trace_rank1.json.gz";
        // A legacy trace names no world size (params.json's is not read for it): only a Kineto
        // trace's distributedInfo says a rank is missing.
        QTest::newRow("Kineto, rank 1's trace gone")
            << kineto << "missing" << 0 << "no trace of rank 1";
    }

    void plantedFaultsAreCaught() {
        QFETCH(QString, job);
        QFETCH(QString, plant);
        QFETCH(int, exitCode);
        QFETCH(QString, said);
        QVERIFY2(jobAt(job), qPrintable(job + " is not in the corpus"));
        const Job& j = *jobAt(job);
        const Variant& v = j.variants.back();
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString src = traceDir(corpus_, j, v), dst = tmp.filePath(v.label);
        QVERIFY(QDir().mkpath(dst));
        for (const QString& name : QDir(src).entryList(QDir::Files)) {
            QVERIFY(QFile::copy(src + "/" + name, dst + "/" + name));
        }
        if (plant == "truncate") {
            QFile f(dst + "/trace_rank1.json.gz");
            QVERIFY(f.resize(f.size() / 2));
        } else if (plant == "missing") {
            QVERIFY(QFile::remove(dst + "/trace_rank1.json.gz"));
        } else if (plant == "params") {
            const Job& other = *jobAt("torch1.13/loopback/resnet18");
            QVERIFY(QFile::remove(dst + "/params.json"));
            QVERIFY(QFile::copy(traceDir(corpus_, other, other.variants.back()) + "/params.json",
                                dst + "/params.json"));
        }
        const CliResult r = runCli("commprof", whatIfArgs(dst, j, v));
        QCOMPARE(r.exitCode, exitCode);
        if (exitCode != 0) {
            QVERIFY2(r.err.contains(said.toUtf8()), r.err.constData());
            QVERIFY(r.out.isEmpty());
            return;
        }
        const QJsonObject out = r.json();
        QCOMPARE(out["incomplete"].toBool(), plant != "none");
        const QString warnings = QJsonDocument(out["warnings"].toArray()).toJson();
        QVERIFY2(said.isEmpty() ? out["warnings"].toArray().isEmpty() : warnings.contains(said),
                 qPrintable(warnings));
    }
};

QTEST_GUILESS_MAIN(TstWhatIfCorpus)
#include "tst_whatif_corpus.moc"
