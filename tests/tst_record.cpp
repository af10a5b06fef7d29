// SPDX-License-Identifier: GPL-3.0-or-later
// commprof record and confirm on an unmodified Python DDP script (tests/data/record/train_ddp.py,
// two real gloo ranks on CPU): the folder it writes is read by trace whatif and trace ddp without
// --params; the captured parameters and buckets are Python DDP's own (record_reference.py asks
// torch's _compute_bucket_assignment_by_size, and a planted registration order fails that
// check); scripts it cannot capture keep their own output and get the documented exit code; the
// script's folder is left as it was; confirm alternates A B and prints a paired interval.

#include "cli_runner.h"
#include "python_ranks.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

namespace {

const QString kScript = COMMPROF_SOURCE_DIR "/tests/data/record/train_ddp.py";
const QString kPublicScript =
    COMMPROF_SOURCE_DIR "/tests/data/record/public/pytorch_sample.py";

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Every file under DIR with its SHA-256: what "no user file is changed" is checked against.
QMap<QString, QByteArray> snapshot(const QString& dir) {
    QMap<QString, QByteArray> out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        out[QDir(dir).relativeFilePath(path)] =
            QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
    }
    return out;
}

} // namespace

class TstRecord : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString userDir_; // a copy of the script, as a user's folder
    QString recorded_;

    CliResult record(const QString& out, const QStringList& scriptArgs,
                     const QStringList& flags = {}) {
        return runCli(
            "commprof",
            QStringList{"record", "--out", out, "--skip", "3", "--steps", "4", "--nproc", "2"} +
                flags + QStringList{"--", python_ranks::kPython, userDir_ + "/train.py"} +
                scriptArgs,
            300000);
    }

private slots:
    void initTestCase() {
        if (!python_ranks::hasTorch()) {
            QSKIP("/usr/bin/python3 has no torch (apt-get install python3-torch)");
        }
        QVERIFY(work_.isValid());
        userDir_ = work_.filePath("user");
        QVERIFY(QDir().mkpath(userDir_));
        QVERIFY(QFile::copy(kScript, userDir_ + "/train.py"));
    }

    void recordsAFolderWhatifReads() {
        const auto before = snapshot(userDir_);
        recorded_ = work_.filePath("rec");
        const CliResult r = record(recorded_, {"--steps", "10", "--width", "512"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The script's own output passes through untouched, every rank's.
        QVERIFY(r.out.contains("train: rank 0 done"));
        QVERIFY(r.out.contains("train: rank 1 done"));
        QVERIFY(r.out.contains("train: rank 1 step 9 loss"));
        QVERIFY2(r.out.contains("record: steps 3-6 of 2 rank(s)"), r.out.constData());
        QCOMPARE(snapshot(userDir_), before);
        for (const char* f : {"trace_rank0.json", "trace_rank1.json", "params.json"}) {
            QVERIFY2(QFile::exists(recorded_ + "/" + f), f);
        }
        // The job as it ran, word for word, for a later confirmation from the workbench.
        QCOMPARE(readJson(recorded_ + "/capture/command.json")["command"].toArray(),
                 QJsonArray::fromStringList({python_ranks::kPython, userDir_ + "/train.py",
                                             "--steps", "10", "--width", "512"}));
        const QJsonObject params = readJson(recorded_ + "/params.json");
        QCOMPARE(params["world_size"].toInt(), 2);
        QCOMPARE(params["backend"].toString(), QString("gloo"));
        QCOMPARE(params["bucket_cap_mb"].toDouble(), 0.25);
        QCOMPARE(params["hook"].toString(), QString("allreduce"));
        QCOMPARE(params["gradient_as_bucket_view"].toBool(true), false);
        QCOMPARE(params["static_graph"].toBool(true), false);
        QCOMPARE(params["find_unused_parameters"].toBool(true), false);

        // trace ddp and trace whatif read the folder without --params.
        const CliResult ddp = runCli("commprof", {"trace", "ddp", recorded_, "--json"});
        QVERIFY2(ddp.exitCode == 0, ddp.err.constData());
        const CliResult w = runCli("commprof", {"trace", "whatif", recorded_, "--json"});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        const QJsonObject rec = w.json()["recorded"].toObject();
        QCOMPARE(rec["world_size"].toInt(), 2);
        QCOMPARE(rec["bucket_cap_mb"].toDouble(), 0.25);
        QVERIFY(rec["step_ms"].toDouble() > 0);
    }

    // A script nobody here wrote (tests/data/record/public/pytorch_sample.py, stored byte for
    // byte from mars-project/mars): recorded as it is, and its folder read without --params.
    // The parameters captured are checked against PyTorch's own count for the script's model.
    void recordsAPublicScript() {
        const QString dir = work_.filePath("public");
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QFile::copy(kPublicScript, dir + "/pytorch_sample.py"));
        const auto before = snapshot(dir);
        const QString out = work_.filePath("rec_public");
        const CliResult r = runCli("commprof",
                                   {"record", "--out", out, "--skip", "3", "--steps", "4",
                                    "--nproc", "2", "--", python_ranks::kPython,
                                    dir + "/pytorch_sample.py", "multiple"},
                                   300000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("record: steps 3-6 of 2 rank(s)"), r.out.constData());
        // The last line ends as a line does, or the shell's prompt is written after it.
        QVERIFY2(r.out.endsWith("next: commprof trace whatif " + out.toUtf8() + "\n"),
                 r.out.constData());
        QCOMPARE(snapshot(dir), before);

        // PyTorch's own figures for the script's model: its get_model(), imported unchanged
        // (the script's main() is behind its __main__ guard).
        const CliResult torchSays = runProgram(
            python_ranks::kPython,
            {"-c", "import importlib.util as u, json, sys\n"
                   "s = u.spec_from_file_location('m', sys.argv[1])\n"
                   "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
                   "ps = list(m.get_model().named_parameters())\n"
                   "print(json.dumps({'names': [n for n, _ in ps], 'bytes': sum(p.numel() * "
                   "p.element_size() for _, p in ps)}))",
             dir + "/pytorch_sample.py"},
            120000);
        QVERIFY2(torchSays.exitCode == 0, torchSays.err.constData());
        const QJsonArray names = torchSays.json()["names"].toArray();
        QCOMPARE(names.size(), 6);

        const QJsonObject params = readJson(out + "/params.json");
        const QJsonArray captured = params["params"].toArray();
        QCOMPARE(captured.size(), names.size());
        for (int i = 0; i < captured.size(); ++i) {
            QCOMPARE(captured[i].toObject()["name"].toString(), names[i].toString());
        }
        double bucketBytes = 0;
        for (const QJsonValue& s : params["buckets"].toObject()["sizes"].toArray()) {
            bucketBytes += s.toDouble();
        }
        QCOMPARE(bucketBytes, torchSays.json()["bytes"].toDouble());
        QCOMPARE(params["world_size"].toInt(), 2);
        QCOMPARE(params["backend"].toString(), QString("gloo"));
        QCOMPARE(params["bucket_cap_mb"].toDouble(), 25.0); // DDP's default: the script sets none

        const CliResult ddp = runCli("commprof", {"trace", "ddp", out, "--json"});
        QVERIFY2(ddp.exitCode == 0, ddp.err.constData());
        // torch 1.13's legacy trace carries no sizes: trace ddp takes them from the folder's
        // params.json, and its one bucket a step is the whole model, as PyTorch counts it.
        for (const QJsonValue rank : ddp.json()["ranks"].toArray()) {
            QVERIFY(!rank["iterations"].toArray().isEmpty());
            for (const QJsonValue it : rank["iterations"].toArray()) {
                double bytes = 0;
                for (const QJsonValue b : it["buckets"].toArray()) {
                    bytes += b["bytes"].toDouble();
                }
                QCOMPARE(bytes, torchSays.json()["bytes"].toDouble());
            }
        }
        const CliResult ddpText = runCli("commprof", {"trace", "ddp", out});
        QVERIFY2(ddpText.exitCode == 0, ddpText.err.constData());
        QVERIFY2(!ddpText.out.contains("size unknown"), ddpText.out.constData());
        QVERIFY2(!ddpText.out.contains("need --params"), ddpText.out.constData());
        // Where the sizes came from is named: torch 1.13's legacy export has none, so the
        // folder's params.json; 2.x's Kineto trace has the collectives' own Input Dims.
        QVERIFY2(ddpText.out.contains("read from the parameters file " + out.toUtf8() +
                                      "/params.json") ||
                     ddpText.out.contains("sizes are c10d::allreduce_'s Input Dims"),
                 ddpText.out.constData());
        const CliResult w = runCli("commprof", {"trace", "whatif", out, "--json"});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        QCOMPARE(w.json()["recorded"].toObject()["world_size"].toInt(), 2);
        QCOMPARE(w.json()["recorded"].toObject()["bucket_cap_mb"].toDouble(), 25.0);
    }

    // The captured parameters and buckets against torch's own bucket assignment for the same
    // model, and the same check failing on a planted registration order.
    void bucketsAreDdpsOwn() {
        QVERIFY(!recorded_.isEmpty());
        const QJsonObject cap = readJson(recorded_ + "/capture/rank0.json");
        const CliResult ref = runProgram(
            python_ranks::kPython,
            {COMMPROF_SOURCE_DIR "/tests/record_reference.py", "mlp:512", "0.25"}, 120000);
        QVERIFY2(ref.exitCode == 0, ref.err.constData());
        const QJsonObject want = ref.json();
        QCOMPARE(want["buckets"].toArray().size(), 3); // the check has buckets to order
        const auto namesShapes = [](const QJsonArray& ps) {
            QJsonArray out;
            for (const QJsonValue p : ps) {
                out.append(QJsonArray{p["name"], p["shape"], p["dtype"]});
            }
            return out;
        };
        QCOMPARE(namesShapes(cap["params"].toArray()), namesShapes(want["params"].toArray()));
        const QJsonArray got = cap["buckets"].toObject()["indices"].toArray();
        QCOMPARE(got, want["buckets"].toArray());
        // The bucket sizes DDP logged are the parameters' bytes, bucket by bucket.
        const QJsonArray sizes = cap["buckets"].toObject()["sizes"].toArray();
        QCOMPARE(sizes.size(), got.size());
        for (int b = 0; b < got.size(); ++b) {
            double bytes = 0;
            for (const QJsonValue i : got[b].toArray()) {
                bytes += cap["params"].toArray()[i.toInt()].toObject()["bytes"].toDouble();
            }
            QCOMPARE(sizes[b].toDouble(), bytes);
        }
        // trace ddp on the folder, without --params: each bucket's bytes are those of the
        // parameters torch's own assignment puts in it (numel times element size of their
        // shapes, float32), bucket by bucket in the order the backward launched them.
        const CliResult ddp = runCli("commprof", {"trace", "ddp", recorded_, "--json"});
        QVERIFY2(ddp.exitCode == 0, ddp.err.constData());
        QJsonArray wantBytes;
        for (const QJsonValue b : want["buckets"].toArray()) {
            double bytes = 0;
            for (const QJsonValue i : b.toArray()) {
                double numel = 1;
                for (const QJsonValue d : want["params"][i.toInt()]["shape"].toArray()) {
                    numel *= d.toDouble();
                }
                bytes += 4 * numel;
            }
            wantBytes.append(bytes);
        }
        for (const QJsonValue rank : ddp.json()["ranks"].toArray()) {
            QVERIFY(!rank["iterations"].toArray().isEmpty());
            for (const QJsonValue it : rank["iterations"].toArray()) {
                QJsonArray gotBytes;
                for (const QJsonValue b : it["buckets"].toArray()) {
                    gotBytes.append(b["bytes"]);
                }
                QCOMPARE(gotBytes, wantBytes);
            }
        }
        // Planted: the buckets' parameters in registration order. The comparison must fail.
        QJsonArray planted;
        int next = 0;
        for (const QJsonValue b : got) {
            QJsonArray one;
            for (int k = 0; k < b.toArray().size(); ++k) {
                one.append(next++);
            }
            planted.append(one);
        }
        QVERIFY(planted != want["buckets"].toArray());
    }

    // A folder the script's own tensorboard_trace_handler wrote (schedule wait 1, warmup 2,
    // active 3; 16 steps: cycles at steps 0-5, 6-11 and a partial one from 12 cut at the end),
    // three files per rank: read as one job, the second cycle (steps 9-11) chosen and named.
    void handlerFolderIsReadAsOneJob() {
        const QString tb = work_.filePath("tb_logs");
        const int port = 29400 + int(QCoreApplication::applicationPid() % 90);
        QProcess ranks[2];
        for (int r = 0; r < 2; ++r) {
            ranks[r].setProcessEnvironment(python_ranks::rankEnvironment(r, 2, "127.0.0.1", port));
            ranks[r].start(python_ranks::kPython, {userDir_ + "/train.py", "--profile", "--steps",
                                                   "16", "--tb-dir", tb, "--width", "512"});
        }
        for (QProcess& p : ranks) {
            QVERIFY(p.waitForFinished(300000));
            QCOMPARE(p.exitCode(), 0);
        }
        QCOMPARE(QDir(tb).entryList({"rank0.*.pt.trace.json"}, QDir::Files).size(), 3);
        QCOMPARE(QDir(tb).entryList({"rank1.*.pt.trace.json"}, QDir::Files).size(), 3);

        const CliResult ddp = runCli("commprof", {"trace", "ddp", tb, "--json"});
        QVERIFY2(ddp.exitCode == 0, ddp.err.constData());
        const QJsonArray rankDocs = ddp.json()["ranks"].toArray();
        QCOMPARE(rankDocs.size(), 2);
        for (const QJsonValue r : rankDocs) {
            QJsonArray stepsRead;
            for (const QJsonValue it : r["iterations"].toArray()) {
                stepsRead.append(it["step"].toInt());
            }
            // What torch marked in each of this rank's files, read from their text: the second
            // holds a full cycle, the third fewer steps (cut at the exit).
            const QStringList files =
                QDir(tb).entryList({QString("rank%1.*.pt.trace.json").arg(r["rank"].toInt())},
                                   QDir::Files, QDir::Name);
            QList<QJsonArray> marked;
            for (const QString& f : files) {
                QFile in(QDir(tb).filePath(f));
                QVERIFY(in.open(QIODevice::ReadOnly));
                const QString text = QString::fromUtf8(in.readAll());
                std::set<int> steps;
                for (auto m = QRegularExpression("\"ProfilerStep#(\\d+)\"").globalMatch(text);
                     m.hasNext();) {
                    steps.insert(m.next().captured(1).toInt());
                }
                QJsonArray a;
                for (int n : steps) {
                    a.append(n);
                }
                marked << a;
            }
            QCOMPARE(marked.size(), 3);
            QCOMPARE(marked[1].size(), 3);
            QVERIFY(marked[2].size() < 3);
            QCOMPARE(stepsRead, marked[1]);
        }
        const QString notes =
            QString::fromUtf8(QJsonDocument(ddp.json()["notes"].toArray()).toJson());
        QVERIFY2(notes.contains("read window 2 of 3, the latest complete one"), qPrintable(notes));

        const CliResult sum = runCli("commprof", {"trace", "summarize", tb});
        QVERIFY2(sum.exitCode == 0, sum.err.constData());
        QVERIFY2((sum.out + sum.err).contains("read window 2 of 3"), sum.err.constData());

        // whatif with the parameters Python gives for the model (no sizes in the legacy export).
        const CliResult ref = runProgram(
            python_ranks::kPython,
            {COMMPROF_SOURCE_DIR "/tests/record_reference.py", "mlp:512", "0.25"}, 120000);
        QVERIFY(ref.exitCode == 0);
        QFile params(work_.filePath("tb_params.json"));
        QVERIFY(params.open(QIODevice::WriteOnly));
        QJsonObject p = ref.json();
        p["bucket_cap_mb"] = 0.25;
        p["world_size"] = 2;
        p.remove("buckets");
        params.write(QJsonDocument(p).toJson());
        params.close();
        const CliResult w =
            runCli("commprof", {"trace", "whatif", tb, "--params", params.fileName(), "--json"});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        QCOMPARE(w.json()["recorded"].toObject()["world_size"].toInt(), 2);
    }

    void refusesWhatItCannotCapture_data() {
        QTest::addColumn<QStringList>("scriptArgs");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no DDP") << QStringList{"--no-ddp"} << 3 << "no_ddp";
        QTest::newRow("own profiler") << QStringList{"--profile"} << 4 << "already_profiles";
        QTest::newRow("two wrappers") << QStringList{"--two-ddp"} << 5 << "several_ddp";
        QTest::newRow("too few steps") << QStringList{"--steps", "5"} << 6 << "too_few_steps";
    }
    void refusesWhatItCannotCapture() {
        QFETCH(QStringList, scriptArgs);
        QFETCH(int, exitCode);
        QFETCH(QString, reason);
        const QString out = work_.filePath(QString("refused-%1").arg(reason));
        const QString tb = work_.filePath(QString("tb-%1").arg(reason));
        const CliResult r = record(out, scriptArgs + QStringList{"--tb-dir", tb});
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY(r.out.contains("train: rank 0 done"));
        QVERIFY(r.out.contains("train: rank 1 done"));
        const QStringList lines = QString::fromUtf8(r.err).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.filter("commprof: record").size() == 1, r.err.constData());
        QVERIFY2(r.err.contains("nothing recorded (" + reason.toUtf8() + ")"), r.err.constData());
        QVERIFY(!QFile::exists(out + "/trace_rank0.json"));
        QVERIFY(!QFile::exists(out + "/params.json"));
        if (reason == "already_profiles") {
            // The script's own traces are written as without commprof: one file per cycle.
            QVERIFY(QDir(tb).entryList({"rank0.*.pt.trace.json"}, QDir::Files).size() >= 1);
        }
    }

    void refusesBadFlags_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("skip 1") << QStringList{"record", "--skip", "1", "--", "true"} << "--skip";
        QTest::newRow("steps 0") << QStringList{"record", "--steps", "0", "--", "true"}
                                 << "--steps";
        QTest::newRow("nproc x") << QStringList{"record", "--nproc", "x", "--", "true"}
                                 << "--nproc";
        QTest::newRow("no command") << QStringList{"record", "--"} << "COMMAND";
        QTest::newRow("confirm no folder")
            << QStringList{"confirm", "/nonexistent", "--bucket-cap-mb", "1", "--", "true"}
            << "/nonexistent";
        QTest::newRow("confirm rounds 1")
            << QStringList{"confirm", "/nonexistent", "--bucket-cap-mb", "1", "--rounds", "1",
                           "--",      "true"}
            << "--rounds";
    }
    void refusesBadFlags() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = runCli("commprof", args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    }

    // A command that starts no Python: its output intact, exit 3, and the reason said.
    void aProgramThatIsNotPython() {
        const CliResult r = runCli("commprof", {"record", "--out", work_.filePath("echo"), "--",
                                                "/bin/echo", "not a training"});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.out, QByteArray("not a training\n"));
        QVERIFY2(r.err.contains("no Python process of the command loaded the capture"),
                 r.err.constData());
    }

    void outFolderIsNeverReused() {
        QVERIFY(!recorded_.isEmpty());
        const auto before = snapshot(recorded_);
        const CliResult r = record(recorded_, {"--steps", "10"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("not empty"));
        QCOMPARE(snapshot(recorded_), before);
    }

    void confirmAlternatesAndPairs() {
        QVERIFY(!recorded_.isEmpty());
        const auto before = snapshot(userDir_);
        const CliResult r =
            runCli("commprof",
                   {"confirm", recorded_, "--bucket-cap-mb", "4", "--rounds", "2", "--skip", "3",
                    "--nproc", "2", "--json", "--", python_ranks::kPython, userDir_ + "/train.py",
                    "--steps", "8", "--width", "512"},
                   600000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(snapshot(userDir_), before); // the script's folder, as record leaves it too
        const QJsonObject doc = r.json(); // the ranks' own output went to stderr
        QVERIFY2(!doc.isEmpty(), r.out.constData());
        QVERIFY(r.err.contains("train: rank 0 done"));
        const QJsonArray a = doc["recorded"]["runs_ms"].toArray();
        const QJsonArray b = doc["candidate"]["runs_ms"].toArray();
        QCOMPARE(a.size(), 2);
        QCOMPARE(b.size(), 2);
        QCOMPARE(doc["candidate"]["bucket_cap_mb"].toDouble(), 4.0);
        QCOMPARE(doc["recorded"]["bucket_cap_mb"].toDouble(), 0.25);
        // The measured difference is the mean of the pairs' differences (hand calculation).
        const double mean =
            ((b[0].toDouble() - a[0].toDouble()) + (b[1].toDouble() - a[1].toDouble())) / 2;
        QVERIFY(std::abs(doc["measured"]["difference_ms"].toDouble() - mean) < 1e-9);
        const QJsonArray interval = doc["measured"]["interval_ms"].toArray();
        QVERIFY(interval[0].toDouble() <= mean && mean <= interval[1].toDouble());
        QCOMPARE(doc["measured"]["rounds"].toInt(), 2);
        // The candidate ran with its cap: the B runs' capture files say the override happened.
        QDir work(recorded_);
        const QStringList confirms = work.entryList({"confirm-*"}, QDir::Dirs);
        QCOMPARE(confirms.size(), 1);
        const QJsonObject b1 = readJson(work.filePath(confirms.first() + "/b1/capture/rank0.json"));
        QCOMPARE(b1["bucket_cap_mb"].toDouble(), 4.0);
        const QJsonObject a1 = readJson(work.filePath(confirms.first() + "/a1/capture/rank0.json"));
        QCOMPARE(a1["bucket_cap_mb"].toDouble(), 0.25);
        QVERIFY(doc.contains("predicted"));
        QVERIFY(doc.contains("prediction_held"));
    }
};

QTEST_GUILESS_MAIN(TstRecord)
#include "tst_record.moc"
