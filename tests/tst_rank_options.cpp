// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank's flags, parsed in process: every row of the table is accepted with a value of
// its form, each flag lands in its own field (values worked out by hand below), and each refusal
// names the flag in the words docs/cli.md shows. The exit code of a refusal (2) is
// tst_rank_ddp's and tst_cli_usage's, which start the real rank.

#include "options.h"
#include "rank_flags.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using commprof::rank::RankOptions;
using commprof::rank::UsageError;

namespace {

RankOptions parse(std::vector<std::string> args) {
    args.insert(args.begin(), "commprof-rank");
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    return commprof::rank::parseOptions(int(argv.size()), argv.data());
}

// The UsageError's text, or "accepted".
QString refusal(const std::vector<std::string>& args) {
    try {
        parse(args);
        return "accepted";
    } catch (const UsageError& e) {
        return QString::fromStdString(e.what());
    }
}

} // namespace

class TstRankOptions : public QObject {
    Q_OBJECT
private slots:
    void init() {
        for (const char* v : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS",
                              "SLURM_LOCALID", "MASTER_ADDR", "MASTER_PORT", "COMMPROF_STORE_TOKEN",
                              "COMMPROF_DELAY_RANK", "COMMPROF_HOOK_DELAY_MS"}) {
            qunsetenv(v);
        }
    }

    // A flag added to the table without a value here fails: its form must be tried.
    void everyRowIsAccepted() {
        const std::map<std::string, std::string> sample{{"--model", "m"},
                                                        {"--params", "1e6"},
                                                        {"--torchscript", "m.pt"},
                                                        {"--input-shape", "3,8,8"},
                                                        {"--classes", "2"},
                                                        {"--tokens", "4"},
                                                        {"--vocab", "9"},
                                                        {"--described-params", "10"},
                                                        {"--described-tensors", "1"},
                                                        {"--layer", "L"},
                                                        {"--cell-id", "c"},
                                                        {"--iterations", "3"},
                                                        {"--warmup", "1"},
                                                        {"--record-from-iteration", "1"},
                                                        {"--batch-size", "2"},
                                                        {"--bucket-cap-mb", "1"},
                                                        {"--first-bucket-mb", "1"},
                                                        {"--powersgd-rank", "2"},
                                                        {"--powersgd-start-iter", "2"},
                                                        {"--seed", "7"},
                                                        {"--threads", "1"},
                                                        {"--trace-first-step", "1"},
                                                        {"--trace-steps", "1"},
                                                        {"--out", "/tmp"},
                                                        {"--rendezvous-timeout-s", "5"},
                                                        {"--collective-timeout-s", "5"},
                                                        {"--fp-iters", "0:4"},
                                                        {"--fp-ranks", "all"},
                                                        {"--fp-max-records", "10"},
                                                        {"--fp-max-bytes", "100"},
                                                        {"--fp-chunk-dim", "0"},
                                                        {"--perturb", "op@0:1"},
                                                        {"--delay-rank", "0:1"},
                                                        {"--hook-delay-ms", "1"},
                                                        {"--sweep", "broadcast"},
                                                        {"--sweep-max-bytes", "64"},
                                                        {"--sweep-warmup", "0"},
                                                        {"--sweep-iters", "1"}};
        const std::vector<std::string> torchscriptOnly{"--torchscript",
                                                       "--input-shape",
                                                       "--classes",
                                                       "--tokens",
                                                       "--vocab",
                                                       "--described-params",
                                                       "--described-tensors",
                                                       "--find-unused-parameters",
                                                       "--check-module"};
        for (const auto& row : commprof::rank::rankFlags()) {
            const auto& o = row.option;
            if (o.flag == "--fork-server" ||
                std::find(torchscriptOnly.begin(), torchscriptOnly.end(), o.flag) !=
                    torchscriptOnly.end()) {
                continue; // below: fork server alone on the line, module flags together
            }
            std::vector<std::string> args{o.flag};
            if (o.takesValue()) {
                const auto s = sample.find(o.flag);
                const std::string v = !o.choices.empty()  ? o.choices.front()
                                      : s != sample.end() ? s->second
                                                          : std::string();
                QVERIFY2(!v.empty(),
                         qPrintable("no sample value for " + QString::fromStdString(o.flag)));
                args.push_back(v);
            }
            QCOMPARE(refusal(args), QString("accepted"));
        }
        QCOMPARE(refusal({"--torchscript", "m.pt", "--input-shape", "3,8,8", "--classes", "2",
                          "--described-params", "10", "--described-tensors", "1",
                          "--find-unused-parameters", "--check-module"}),
                 QString("accepted"));
    }

    void eachFlagSetsItsField() {
        RankOptions o = parse({"--iterations=7",
                               "--warmup",
                               "2",
                               "--batch-size",
                               "3",
                               "--bucket-cap-mb",
                               "2.5",
                               "--first-bucket-mb",
                               "0.5",
                               "--optimizer",
                               "adam",
                               "--hook",
                               "timing",
                               "--seed",
                               "1e3",
                               "--threads",
                               "4",
                               "--trace",
                               "--trace-steps",
                               "3",
                               "--out",
                               "/x",
                               "--backend",
                               "gloo",
                               "--device",
                               "cpu",
                               "--cell-id",
                               "c1"});
        QCOMPARE(o.iterations, 7);
        QCOMPARE(o.warmup, 2);
        QCOMPARE(o.recordFromIteration, 2); // defaults to --warmup
        QCOMPARE(o.powersgdStartIter, 2);   // the first recorded iteration, at least 2
        QCOMPARE(o.traceFirstStep, 2);      // the first recorded iteration
        QCOMPARE(o.batchSize, 3);
        QCOMPARE(o.bucketCapMb, 2.5);
        QCOMPARE(o.firstBucketMb, 0.5);
        QCOMPARE(o.optimizer, std::string("adam"));
        QCOMPARE(o.hook, std::string("allreduce")); // "timing" is its older name
        QCOMPARE(o.seed, std::uint64_t(1000));
        QCOMPARE(o.threads, 4);
        QVERIFY(o.trace);
        QCOMPARE(o.traceSteps, 3);
        QCOMPARE(o.outDir, std::string("/x"));
        QCOMPARE(o.cellId, std::string("c1"));
        QCOMPARE(o.layer, std::string("gloo_cpu"));

        o = parse({"--fp-ranks", "0,3,8-10", "--fp-iters", "2:10:3", "--fingerprint", "op",
                   "--perturb", "grad@1-2:5", "--delay-rank", "1:250", "--sweep",
                   "all_reduce,broadcast", "--sweep-max-bytes", "1024"});
        QCOMPARE(o.fpRanks, (std::vector<int>{0, 3, 8, 9, 10}));
        QCOMPARE(o.fpIterStart, 2);
        QCOMPARE(o.fpIterEnd, 10);
        QCOMPARE(o.fpIterEvery, 3);
        QVERIFY(o.fpOp && !o.fpSemantic);
        QCOMPARE(o.perturbOp, std::string("grad"));
        QCOMPARE(o.perturbRanks, (std::vector<int>{1, 2}));
        QCOMPARE(o.perturbIter, 5);
        QCOMPARE(o.delayRank, 1);
        QCOMPARE(o.delayMs, 250.0);
        QCOMPARE(o.sweepKinds, (std::vector<std::string>{"all_reduce", "broadcast"}));
        QCOMPARE(o.sweepMaxBytes, std::int64_t(1024));

        o = parse({"--model", "transformer400m"});
        QCOMPARE(o.family, std::string("transformer"));
        QCOMPARE(o.params, 4e8);
        // A flag given wins over the preset's: the default model (mlp2m) is a preset too.
        o = parse({"--family", "transformer", "--params", "1e6"});
        QCOMPARE(o.family, std::string("transformer"));
        QCOMPARE(o.params, 1e6);
        o = parse({"--model", "mlp50m", "--family", "transformer"});
        QCOMPARE(o.family, std::string("transformer"));
        QCOMPARE(o.params, 5e7);

        o = parse({"--torchscript", "dir/resnet18.pt", "--tokens", "8", "--vocab", "100"});
        QCOMPARE(o.model, std::string("resnet18")); // named after the file
        QCOMPARE(o.params, 0.0);                    // the file's
    }

    void environment() {
        qputenv("SLURM_PROCID", "2");
        qputenv("SLURM_NTASKS", "3");
        qputenv("MASTER_PORT", "1234");
        qputenv("COMMPROF_DELAY_RANK", "2:500");
        RankOptions o = parse({});
        QCOMPARE(o.rank, 2);
        QCOMPARE(o.worldSize, 3);
        QCOMPARE(o.masterPort, 1234);
        QCOMPARE(o.delayRank, 2);
        o = parse({"--delay-rank", "0:3"}); // the flag wins over the environment
        QCOMPARE(o.delayRank, 0);
        QCOMPARE(o.delayMs, 3.0);
        qputenv("MASTER_PORT", "70000");
        QCOMPARE(refusal({}), QString("MASTER_PORT 70000 is not a port"));
        qputenv("MASTER_PORT", "1234");
        qputenv("RANK", "3");
        QCOMPARE(refusal({}), QString("RANK 3 is outside WORLD_SIZE 3"));
    }

    void refusalsNameTheFlag_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, QStringList args, const char* message) {
            QTest::newRow(name) << args << QString(message);
        };
        row("unknown", {"--no-such-flag"}, "unknown flag '--no-such-flag'");
        row("missing value", {"--iterations"}, "--iterations: missing value");
        row("not an integer", {"--iterations", "7x"},
            "--iterations: expected an integer, got '7x'");
        row("not a number", {"--params", "abc"}, "--params: expected a number, got 'abc'");
        row("choice", {"--family", "cnn"}, "--family: expected mlp or transformer, got 'cnn'");
        row("fingerprint", {"--fingerprint", "xyz"},
            "--fingerprint: expected semantic, op or semantic,op, got 'xyz'");
        row("fork server", {"--fork-server", "/s", "--trace"},
            "--fork-server takes its socket and nothing else: commprof-rank --fork-server SOCKET");
        row("delay form", {"--delay-rank", "1"}, "--delay-rank: expected RANK:MS, got '1'");
        row("delay range", {"--delay-rank", "1:700000"},
            "--delay-rank: expected a rank >= 0 and 0..600000 ms, got '1:700000'");
        row("hook delay", {"--hook-delay-ms", "70000"},
            "--hook-delay-ms: expected 0..60000 ms, got '70000'");
        row("fp-iters empty", {"--fp-iters", "5:5"}, "--fp-iters: empty iteration range '5:5'");
        row("fp-ranks empty", {"--fp-ranks", "5-2"}, "--fp-ranks: empty range '5-2'");
        row("perturb form", {"--perturb", "grad:5"},
            "--perturb: expected OP@RANK:ITER, got 'grad:5'");
        row("sweep kind", {"--sweep", "all_reduce,bogus"},
            "--sweep: expected a list of all_reduce, all_gather, reduce_scatter, broadcast, got "
            "'bogus'");
        row("sweep bytes", {"--sweep-max-bytes", "4"},
            "--sweep-max-bytes: expected 8 to 2^40 bytes, got '4'");
        row("described params", {"--described-params", "1.5"},
            "--described-params: expected a whole number >= 0, got '1.5'");
        row("input shape", {"--input-shape", "3,0"},
            "--input-shape: expected positive dimensions, got '3,0'");
        row("module flag alone", {"--classes", "3"},
            "--input-shape, --tokens, --vocab, --classes, --find-unused-parameters, "
            "--described-params, --described-tensors and --check-module need --torchscript FILE");
        row("params range", {"--params", "1e3"}, "--params: expected 1e4..2e9, got 1000.000000");
        row("powersgd start", {"--powersgd-start-iter", "1"},
            "--powersgd-start-iter: expected >= 2 (error feedback and warm start need the "
            "buckets DDP rebuilds after the first iteration), got 1");
    }
    void refusalsNameTheFlag() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> a;
        for (const QString& s : args) {
            a.push_back(s.toStdString());
        }
        QCOMPARE(refusal(a), message);
    }
};

QTEST_GUILESS_MAIN(TstRankOptions)
#include "tst_rank_options.moc"
