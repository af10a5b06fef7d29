// SPDX-License-Identifier: GPL-3.0-or-later
// What `trace ddp`, `trace whatif` and `report` make of damaged or absurd inputs, on real
// fixture traces altered here: a rank's trace cut in half is flagged as an incomplete job (the
// reader's warning carried to every output), a rank missing from the world size is named, an
// impossible rank is refused naming its file, absurd sizes and rates are refused naming the
// field or flag, a FIFO given as a file never blocks, and names from input files reach the
// terminal with their control characters escaped.

#include "cli_runner.h"
#include "ddp_fixtures.h"
#include "gzip_files.h"
#include "pdf_words.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

using namespace ddp_fixtures;

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString warningsOf(const CliResult& r) {
    return QString::fromUtf8(QJsonDocument(r.json()["warnings"].toArray()).toJson());
}

} // namespace

class TstTraceJobInputs : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

    // A folder holding the legacy job's two ranks, rank 0's file cut at half its length.
    QString cutJob() {
        const QString dir = work_.filePath("cut");
        QDir().mkpath(dir);
        const QByteArray whole = readFile(kLegacy0);
        writeFile(dir + "/legacy_gloo_ddp_rank0.json.gz", whole.left(whole.size() / 2));
        writeFile(dir + "/legacy_gloo_ddp_rank1.json.gz", readFile(kLegacy1));
        return dir;
    }

    // The NCCL fixture with its distributedInfo changed by `edit` (rank and world size).
    QString ncclAs(const QString& name, const QString& rank, const QString& worldSize) {
        QByteArray text = gunzip(kNccl);
        const QByteArray from =
            "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2";
        if (!text.contains(from)) {
            return {};
        }
        text.replace(
            from,
            QString("\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %1, \"world_size\": %2")
                .arg(rank, worldSize)
                .toUtf8());
        const QString path = work_.filePath(name);
        writeFile(path, text);
        return path;
    }

    // The legacy rank 0 with every inner AccumulateGrad span's duration set to `dur`.
    QString legacyWithAccumulateGrad(const QString& name, const QString& dur) {
        QString text = QString::fromUtf8(gunzip(kLegacy0));
        static const QRegularExpression span(
            R"(("name": "torch::autograd::AccumulateGrad", "ph": "X", "ts": \d+, "dur": )\d+)");
        text.replace(span, "\\1" + dur);
        const QString path = work_.filePath(name);
        writeFile(path, text.toUtf8());
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(work_.isValid()); }

    // The campaign's case: rank 0 cut at half its length reads 2 of its 4 iterations. Both
    // commands say the job is incomplete, carry the reader's "ends early" and name the ranks'
    // iteration counts, in JSON, on stderr and in the text; the whole job says none of it.
    void cutRankIsFlaggedInDdpAndWhatIf() {
        const QString dir = cutJob();
        for (const QString& command : {QString("ddp"), QString("whatif")}) {
            const QStringList base{"trace", command, dir, "--params", kLegacyParams};
            const CliResult r = runCli("commprof", base + QStringList{"--json"}, 120000);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY2(r.json()["incomplete"].toBool(), r.out.left(400).constData());
            const QString w = warningsOf(r);
            QVERIFY2(w.contains("ends early") && w.contains("legacy_gloo_ddp_rank0"),
                     qPrintable(w));
            QVERIFY2(w.contains("rank 0") && w.contains("has 2 iterations where rank 1 has 4"),
                     qPrintable(w));
            QVERIFY2(r.err.contains("incomplete job"), r.err.constData());
            const CliResult text = runCli("commprof", base, 120000);
            QCOMPARE(text.exitCode, 0);
            QVERIFY2(text.out.startsWith("warning: incomplete job"),
                     text.out.left(300).constData());
            QVERIFY(text.out.contains("ends early"));
        }
        const CliResult whole = runCli(
            "commprof",
            {"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams, "--json"}, 120000);
        QCOMPARE(whole.exitCode, 0);
        QVERIFY(!whole.json()["incomplete"].toBool());
        QCOMPARE(whole.json()["warnings"].toArray().size(), 0);
    }

    // report on the cut folder says so on stderr and in what it writes.
    void cutRankIsFlaggedInReport() {
        const QString dir = cutJob();
        writeFile(dir + "/params.json", readFile(kLegacyParams));
        const QString out = work_.filePath("cut_report");
        const CliResult r = runCli("commprof", {"report", dir, "--out", out}, 300000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("incomplete job") && r.err.contains("ends early"),
                 r.err.constData());
        const QJsonObject whatif = QJsonDocument::fromJson(readFile(out + "/whatif.json")).object();
        const QString notes = QString::fromUtf8(QJsonDocument(whatif["notes"].toArray()).toJson());
        QVERIFY2(!notes.contains("ends early"), qPrintable(notes)); // in "warnings", once
        QVERIFY(readFile(out + "/macros.tex").contains("an incomplete job"));
        // The same keys as `trace whatif --json`, and the figure says it too.
        QVERIFY(whatif["incomplete"].toBool());
        QVERIFY(QJsonDocument(whatif["warnings"].toArray()).toJson().contains("ends early"));
        const QString figure = wordsOf(out + "/whatif.pdf").text();
        QVERIFY2(figure.contains("incomplete job"), qPrintable(figure));
    }

    // A world-size-3 job with rank 2's trace absent: named, and the job flagged.
    void missingRankIsNamed() {
        const QString r0 = ncclAs("ws3_rank0.json", "0", "3");
        const QString r1 = ncclAs("ws3_rank1.json", "1", "3");
        QVERIFY(!r0.isEmpty() && !r1.isEmpty());
        for (const QString& command : {QString("ddp"), QString("whatif")}) {
            const CliResult r = runCli("commprof", {"trace", command, r0, r1, "--json"}, 120000);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY(r.json()["incomplete"].toBool());
            QVERIFY2(warningsOf(r).contains("world size 3, but no trace of rank 2"),
                     qPrintable(warningsOf(r)));
        }
    }

    // distributedInfo rank 5 in a world of 2, or -1: refused, naming the file.
    void impossibleRanksAreRefused() {
        for (const QString& rank : {QString("5"), QString("-1")}) {
            const QString path = ncclAs("rank" + rank + "_of_2.json", rank, "2");
            QVERIFY(!path.isEmpty());
            const CliResult r = runCli("commprof", {"trace", "ddp", path, "--json"}, 120000);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(path.toUtf8()) &&
                         r.err.contains("distributedInfo.rank " + rank.toUtf8()),
                     r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
        // summarize shows what it can of such a job: the rank said and numbered by position.
        const QString r5 = ncclAs("rank5_of_2.json", "5", "2");
        const QString r1 = ncclAs("rank1_of_2.json", "1", "2");
        const CliResult r = runCli("commprof", {"trace", "summarize", r5, r1, "--json"}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString all = QString::fromUtf8(r.out);
        QVERIFY2(all.contains("rank 5 is outside its world size 2"), r.out.left(3000).constData());
    }

    // Every AccumulateGrad span dropped by the reader (a negative or absurd duration): the
    // refusal says they were dropped, as summarize does, not that the trace has none.
    void droppedAccumulateGradIsSaid() {
        for (const QString& dur : {QString("-5000"), QString("1000000000000000000")}) {
            const QString path = legacyWithAccumulateGrad("grad_dur" + dur + ".json", dur);
            const CliResult r = runCli("commprof", {"trace", "ddp", path});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("dropped") && r.err.contains("events"), r.err.constData());
        }
    }

    // ProfilerStep#2 stretched over step 3: the refusal says the steps overlap.
    void overlappingStepsAreSaid() {
        QString text = QString::fromUtf8(gunzip(kLegacy0));
        static const QRegularExpression step2(
            "(\"name\": \"ProfilerStep#2\", \"ph\": \"X\", \"ts\": \\d+, \"dur\": )\\d+");
        QVERIFY(step2.match(text).hasMatch());
        text.replace(step2, "\\1200000");
        const QString path = work_.filePath("overlap.json");
        writeFile(path, text.toUtf8());
        const CliResult r = runCli("commprof", {"trace", "ddp", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("overlap") && !r.err.contains("not ranks of one job"),
                 r.err.constData());
    }

    // One sanity rule: the product of a shape's dimensions, and factors down to denormals,
    // refused where they are read, naming the field or flag.
    void absurdSizesAndRatesAreRefused() {
        QJsonObject params = QJsonDocument::fromJson(readFile(kLegacyParams)).object();
        QJsonArray list = params["params"].toArray();
        QJsonObject first = list[0].toObject();
        first["shape"] = QJsonArray{4294967296.0, 4294967296.0};
        list[0] = first;
        params["params"] = list;
        const QString huge = work_.filePath("huge_params.json");
        writeFile(huge, QJsonDocument(params).toJson());
        CliResult r = runCli("commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params", huge});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("params[0].shape") && r.err.contains("product"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        // Each tensor 4 TiB (2^20 x 2^20 floats, sane alone), the 14 together 56 TiB: refused.
        for (qsizetype i = 0; i < list.size(); ++i) {
            QJsonObject p = list[i].toObject();
            p["shape"] = QJsonArray{1048576.0, 1048576.0};
            list[i] = p;
        }
        params["params"] = list;
        writeFile(huge, QJsonDocument(params).toJson());
        r = runCli("commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params", huge});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("params: the gradients together hold 6.15727e+13 bytes"),
                 r.err.constData());
        const QStringList job{"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams};
        for (const auto& [flag, value] :
             {std::pair{"--bandwidth-x", "4.9e-324"}, std::pair{"--bandwidth-x", "1e300"},
              std::pair{"--first-bucket-mb", "1e308"}, std::pair{"--first-bucket-mb", "1e-300"},
              std::pair{"--bucket-cap-mb", "1e-320"}, std::pair{"--compute-contention", "1e-320"},
              std::pair{"--recorded-bucket-cap-mb", "1e308"}}) {
            r = runCli("commprof", job + QStringList{flag, value, "--json"});
            QVERIFY2(r.exitCode == 2,
                     qPrintable(QString("%1 %2: exit %3").arg(flag, value).arg(r.exitCode)));
            QVERIFY2(r.err.contains(flag), r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
        // A sane first bucket the recorded buckets do not follow: the refusal names the flag.
        r = runCli("commprof", job + QStringList{"--first-bucket-mb", "1000"}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no bucket cap reproduces") &&
                     r.err.contains("--first-bucket-mb 1000"),
                 r.err.constData());
        // The limits themselves are taken.
        r = runCli("commprof", job + QStringList{"--bandwidth-x", "1e-6", "--json"}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const QJsonValue& s : r.json()["scenarios"].toArray()) {
            QVERIFY(s["step_ms"].isDouble() && s["uncertainty_ms"].isDouble());
        }
    }

    // A trace whose collectives claim 1e16 elements (4e16 bytes, beyond 16 TiB): the bucket
    // sizes are dropped as absurd, said in the job's warnings, and never replayed as sizes.
    void absurdBucketSizesFromATraceAreDropped() {
        QString text = QString::fromUtf8(gunzip(kNccl));
        static const QRegularExpression nelems("(\"In msg nelems\": )\\d+");
        QVERIFY(nelems.match(text).hasMatch());
        text.replace(nelems, "\\1 10000000000000000"); // a space: \\11 would be group 11
        const QString path = work_.filePath("absurd_nelems.json");
        writeFile(path, text.toUtf8());
        const CliResult r = runCli("commprof", {"trace", "ddp", path, "--json"}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(warningsOf(r).contains("dropped as absurd"), qPrintable(warningsOf(r)));
        for (const QJsonValue& rank : r.json()["ranks"].toArray()) {
            QVERIFY(!rank["sized"].toBool());
            for (const QJsonValue& it : rank["iterations"].toArray()) {
                for (const QJsonValue& b : it["buckets"].toArray()) {
                    QVERIFY(b["bytes"].isNull());
                }
            }
        }
    }

    // --hook-calibration on a FIFO is refused at once (the test gives it 20 s, where a read
    // would block forever), and "hooks": [1,2] is refused naming the field.
    void hookCalibrationIsARegularFileOfHooks() {
        const QString fifo = work_.filePath("calibration.fifo");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const QStringList job{"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams};
        CliResult r = runCli("commprof", job + QStringList{"--hook-calibration", fifo}, 20000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("calibration.fifo") && r.err.contains("not a regular file"),
                 r.err.constData());
        const QString list = work_.filePath("hooks_list.json");
        writeFile(list, R"({"backend":"gloo","fp32_ns_per_byte":1.1,"hooks":[1,2]})");
        r = runCli("commprof", job + QStringList{"--hook-calibration", list});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("hooks_list.json") && r.err.contains("hooks:"), r.err.constData());
    }

    // Gradient names with ESC and NUL from --params reach the text escaped (trace ddp names
    // the gradients the ranks waited for).
    void controlCharactersInNamesAreEscaped() {
        QJsonObject params = QJsonDocument::fromJson(readFile(kLegacyParams)).object();
        QJsonArray list = params["params"].toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            QJsonObject p = list[i].toObject();
            p["name"] = QString("\x1b[31mred%1\x1b[0m").arg(i) + QChar(0) + "end";
            list[i] = p;
        }
        params["params"] = list;
        const QString path = work_.filePath("escape_params.json");
        writeFile(path, QJsonDocument(params).toJson());
        const CliResult r =
            runCli("commprof", {"trace", "ddp", kLegacy0, kLegacy1, "--params", path}, 120000);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.contains('\x1b') && !r.out.contains('\0'));
        QVERIFY2(r.out.contains("\\x1b[31mred") && r.out.contains("\\x00end"),
                 r.out.left(2000).constData());
    }
};

QTEST_GUILESS_MAIN(TstTraceJobInputs)
#include "tst_trace_job_inputs.moc"
