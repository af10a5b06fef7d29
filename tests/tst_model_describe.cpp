// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof model describe FILE.pt` (issue 38): a module the user scripted and saved with
// torch.jit.script(model).save(...) gets the description a matrix needs. Its parameter list is
// checked against what PyTorch's Python prints from named_parameters() of the same module (an
// independent source); a matrix that names the module with its input has it described by plan
// itself (issue 52), and where Python cannot, plan says how to describe it; a .pt that is not
// TorchScript is refused, exit 2, naming the file, with nothing written.

#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

// The user's side: a small conv net scripted and saved, the same net saved eagerly (a pickle,
// not TorchScript), and named_parameters() printed as one JSON line per parameter.
const char* kUserScript = R"(
import json, sys, torch, torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 5)
    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).mean([2, 3]))
torch.manual_seed(1)
net = Net()
torch.jit.script(net).save(sys.argv[1] + "/mine.pt")
torch.save(net, sys.argv[1] + "/eager.pt")
for name, p in net.named_parameters():
    print(json.dumps({"name": name, "shape": list(p.shape), "numel": p.numel()}))
)";

bool pythonImports(const QString& modules) {
    QProcess p;
    p.start("/usr/bin/python3", {"-c", "import " + modules});
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

QJsonObject readJson(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                       : QJsonObject();
}

} // namespace

class TstModelDescribe : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QList<QJsonObject> pythonParams_; // as Python's named_parameters() lists them

    QString path(const QString& name) const { return dir_.filePath(name); }

    void writeMatrix() {
        QFile f(path("m.yaml"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("name: mine\n"
                "defaults: {batch_size: 4, iterations: 6, warmup: 1}\n"
                "models:\n"
                "  - {name: mine, torchscript: mine.pt, input: {shape: [3, 8, 8]}, "
                "target: {classes: 5}}\n"
                "layers: [{name: gloo_cpu}]\n"
                "world_sizes: [2]\n");
    }

private slots:
    void initTestCase() {
        if (!pythonImports("torch")) {
            if (qEnvironmentVariableIsSet("COMMPROF_REQUIRE_PYTORCH")) {
                QFAIL("/usr/bin/python3 cannot import torch (install python3-torch)");
            }
            QSKIP("/usr/bin/python3 has no torch: nothing to script or describe");
        }
        QVERIFY(dir_.isValid());
        QFile script(path("user.py"));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(kUserScript);
        script.close();
        const CliResult r = runProgram("/usr/bin/python3", {path("user.py"), dir_.path()}, 180000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const QByteArray& line : r.out.split('\n')) {
            if (!line.trimmed().isEmpty()) {
                pythonParams_ << QJsonDocument::fromJson(line).object();
            }
        }
        QCOMPARE(pythonParams_.size(), 6); // conv, bn and fc: a weight and a bias each
        writeMatrix();
    }

    QString describeCommand() const {
        return "run: commprof model describe " + QDir(dir_.path()).filePath("mine.pt") +
               " --input-shape 3,8,8 --classes 5";
    }

    // Where Python cannot describe the module, plan says, as before, which command makes its
    // description, exit 2, and nothing is written.
    void planWithoutPythonNamesTheCommand_data() {
        QTest::addColumn<QString>("python");
        QTest::newRow("python fails") << "/bin/false";
        QTest::newRow("no such python") << "/nonexistent/python3";
        // As Python killed at its time limit (30 minutes, too long to wait for here): the
        // description half written to its .part, then the process gone.
        QFile killed(path("killed_python.sh"));
        QVERIFY(killed.open(QIODevice::WriteOnly));
        killed.write("#!/bin/sh\n"
                     "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
                     "printf '{\"parameters\": [' > \"$out.part\"\n"
                     "kill -KILL $$\n");
        killed.close();
        QVERIFY(killed.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        QTest::newRow("python killed while writing") << killed.fileName();
    }
    void planWithoutPythonNamesTheCommand() {
        QFETCH(QString, python);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_PYTHON", python);
        const CliResult r = runCli("commprof", {"plan", path("m.yaml"), "--json"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains("m.yaml:4:") && err.contains("mine.json: "), r.err.constData());
        QVERIFY2(err.contains(describeCommand()), r.err.constData());
        QVERIFY2(err.contains("could not describe " + path("mine.pt")), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFile::exists(path("mine.json")));
        QVERIFY(!QFile::exists(path("mine.json.part"))); // nothing half written left behind
    }

    // The matrix entry holds the input and the classes: plan describes the module itself with
    // Python's PyTorch, says so in one line on stderr before it starts, and plans. The
    // description's parameters are what Python's named_parameters() of the same module lists;
    // stdout stays the plan's JSON alone.
    void planDescribesTheModuleItself() {
        QVERIFY(!QFile::exists(path("mine.json")));
        const CliResult r = runCli("commprof", {"plan", path("m.yaml"), "--json"}, 300000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString line = "commprof: describing " + path("mine.pt") +
                             " with Python's PyTorch at the matrix entry's input (--input-shape "
                             "3,8,8 --classes 5) into " +
                             path("mine.json") + "\n";
        QCOMPARE(QString::fromUtf8(r.err), line);
        QJsonParseError error{};
        const QJsonObject plan = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, r.out.constData());
        QCOMPARE(plan["cells"].toArray().size(), 1);
        const QJsonObject d = readJson(path("mine.json"));
        QCOMPARE(d["input"].toObject()["shape"].toArray(), (QJsonArray{3, 8, 8}));
        QCOMPARE(d["target"].toObject()["classes"].toInt(), 5);
        double numel = 0;
        QStringList pythonNames, described;
        for (const QJsonObject& p : pythonParams_) {
            numel += p["numel"].toDouble();
            pythonNames << p["name"].toString();
        }
        for (const QJsonValue p : d["parameters"].toArray()) {
            described << p.toObject()["name"].toString();
        }
        QCOMPARE(described, pythonNames);
        QCOMPARE(d["params_total"].toDouble(), numel);
        const QJsonObject cell = plan["cells"].toArray()[0].toObject();
        // Every parameter of the net trains: the plan sizes the cell by all of them.
        QCOMPARE(cell["torchscript"].toObject()["params_trainable"].toDouble(), numel);
        QCOMPARE(cell["torchscript"].toObject()["tensors"].toInt(), int(pythonParams_.size()));
        // Described once: the next plan reads it and says nothing.
        const CliResult again = runCli("commprof", {"plan", path("m.yaml"), "--json"}, 60000);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QVERIFY2(again.err.isEmpty(), again.err.constData());
    }

    void describedParametersAreWhatPythonLists() {
        const CliResult r = runCli(
            "commprof", {"model", "describe", path("mine.pt"), "--input-shape", "3,8,8"}, 300000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject d = readJson(path("mine.json"));
        QCOMPARE(d["format"].toString(), QString("commprof-model-description"));
        QCOMPARE(d["torchscript"].toString(), QString("mine.pt"));
        QCOMPARE(d["input"].toObject()["shape"].toArray(), (QJsonArray{3, 8, 8}));
        // The classes are the output's width: fc has 5 outputs.
        QCOMPARE(d["target"].toObject()["classes"].toInt(), 5);
        const QJsonArray params = d["parameters"].toArray();
        QCOMPARE(params.size(), pythonParams_.size());
        double total = 0;
        for (int i = 0; i < params.size(); ++i) {
            const QJsonObject mine = params[i].toObject();
            QCOMPARE(mine["name"].toString(), pythonParams_[i]["name"].toString());
            QCOMPARE(mine["shape"].toArray(), pythonParams_[i]["shape"].toArray());
            QCOMPARE(mine["dtype"].toString(), QString("float32"));
            QCOMPARE(mine["bytes"].toDouble(), pythonParams_[i]["numel"].toDouble() * 4);
            total += pythonParams_[i]["numel"].toDouble();
        }
        // By hand: conv 4*3*3*3 + 4, bn 4 + 4, fc 5*4 + 5 = 145.
        QCOMPARE(total, 145.0);
        QCOMPARE(d["params_total"].toDouble(), total);
    }

    void planOfADescribedModuleSucceeds() {
        const CliResult r = runCli("commprof", {"plan", path("m.yaml"), "--json"}, 60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray cells = QJsonDocument::fromJson(r.out).object()["cells"].toArray();
        QCOMPARE(cells.size(), 1);
    }

    void aPickleIsNotTorchScript() {
        const QStringList before = QDir(dir_.path()).entryList(QDir::Files);
        const CliResult r = runCli("commprof", {"model", "describe", path("eager.pt")}, 300000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(path("eager.pt").toUtf8() + " is not a TorchScript module"),
                 r.err.constData());
        QCOMPARE(QDir(dir_.path()).entryList(QDir::Files), before); // nothing written
        QVERIFY(!QFile::exists(path("eager.json")));
    }

    // A 64 MiB record deflated into a file of kilobytes: refused from the zip's declared sizes
    // before Python unpacks it (commprof-rank's bound), naming the file; nothing written.
    void anArchiveDeclaringTooMuchIsRefusedBeforeUnpacking() {
        const QString bomb = path("bomb.pt");
        const CliResult made =
            runProgram("/usr/bin/python3",
                       {"-c",
                        "import sys, zipfile\n"
                        "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                        "    z.writestr('bomb/version', b'3\\n')\n"
                        "    z.writestr('bomb/data.pkl', bytes(64 << 20))\n",
                        bomb},
                       120000);
        QVERIFY2(made.exitCode == 0, made.err.constData());
        QVERIFY(QFileInfo(bomb).size() < (1 << 20));
        const CliResult r = runCli("commprof", {"model", "describe", bomb}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(bomb.toUtf8() + ": its zip records declare more than") &&
                     r.err.contains("bomb/data.pkl"),
                 r.err.constData());
        QVERIFY(!QFile::exists(path("bomb.json")));
    }

    // The bounds calibrate and the plan read a description with: refused at describe.
    void describeFlagsHaveTheDescriptionsBounds() {
        for (const QStringList& flags :
             {QStringList{"--classes", "1000000000000"}, QStringList{"--classes", "0"},
              QStringList{"--input-shape", "3,8,1e12"}, QStringList{"--tokens", "2000000"}}) {
            const CliResult r = runCli(
                "commprof",
                QStringList{"model", "describe", path("mine.pt"), "--out", path("bounds.json")} +
                    flags,
                60000);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(flags[0].toUtf8() + ": expected a whole number from 1 to"),
                     r.err.constData());
            QVERIFY(!QFile::exists(path("bounds.json")));
        }
    }

    // A FIFO is refused at once (the test gives it 20 s; reading it would block forever).
    void aFifoIsNotRead() {
        const QString fifo = path("module.pt");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const CliResult r = runCli("commprof", {"model", "describe", fifo}, 20000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not a regular file"), r.err.constData());
    }

    void aMissingFileIsNamed() {
        const CliResult r = runCli("commprof", {"model", "describe", path("none.pt")}, 300000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(path("none.pt").toUtf8() + ": cannot open"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstModelDescribe)
#include "tst_model_describe.moc"
