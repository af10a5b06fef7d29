// SPDX-License-Identifier: GPL-3.0-or-later
// A matrix model entry that names a TorchScript file: the path is the matrix file's, the
// description beside the module sizes the plan (parameters, gradients, buckets, optimizer
// state from its parameter list; activations as commprof calibrate measured them, else the
// export's estimate, scaled to another input),
// and every mistake in the entry or the description is an error at file:line:col.

#include "cli_runner.h"
#include "feasibility/footprint.h"
#include "matrix/matrix.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

// A hand-written description: 1000 parameters in two tensors, 800 of them trainable, and the
// activations of one forward as an exporter measured them at a 3x8x8 input.
// With `measured`, commprof calibrate's figure beside the export's: 7000 bytes per sample.
QByteArray description(double total = 1000, bool sparse = false, bool measured = false) {
    QJsonObject b{{"name", "b.weight"}, {"shape", QJsonArray{40, 20}}, {"requires_grad", true}};
    if (sparse) {
        b["sparse_gradient"] = true;
    }
    QJsonObject activations{{"bytes_per_sample", 5000.0}, {"bytes_fixed", 100.0}};
    if (measured) {
        activations["measured"] = QJsonObject{{"bytes_per_sample", 7000.0}};
    }
    return QJsonDocument(
               QJsonObject{{"format", "commprof-model-description"},
                           {"version", 1},
                           {"input", QJsonObject{{"shape", QJsonArray{3, 8, 8}}}},
                           {"target", QJsonObject{{"classes", 10}}},
                           {"params_total", total},
                           {"params_trainable", 800},
                           {"parameters", QJsonArray{QJsonObject{{"name", "a.weight"},
                                                                 {"shape", QJsonArray{10, 20}},
                                                                 {"requires_grad", false}},
                                                     b}},
                           {"activations", activations}})
        .toJson();
}

void write(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QByteArray matrixText(const QString& entry) {
    return ("name: ts\n"
            "defaults: {batch_size: 4, optimizer: adam}\n"
            "models:\n"
            "  - " +
            entry +
            "\n"
            "layers: [{name: gloo_cpu}]\n"
            "world_sizes: [2]\n")
        .toUtf8();
}

double term(const feasibility::FootprintEstimate& e, const QString& name, QString* basis = {}) {
    for (const auto& t : e.host.terms) {
        if (t.name.startsWith(name)) {
            if (basis) {
                *basis = t.basis;
            }
            return t.bytes;
        }
    }
    return -1;
}

} // namespace

class TstTorchScriptPlan : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        write(path("models/net.pt"), "not read by the plan");
        write(path("models/net.json"), description());
    }

    // By hand: 2 ranks x (1000 x 4 weights, 800 x 4 grads, 800 x 4 bucket bytes, 800 x 8 Adam
    // state, 100 + 5000 x 4 activation bytes).
    void termsFromTheDescription() {
        write(path("m.yaml"),
              matrixText("{name: net, torchscript: models/net.pt, input: {shape: [3, 8, 8]}, "
                         "target: {classes: 10}}"));
        const matrix::Matrix m = matrix::loadMatrix(path("m.yaml"));
        const auto cells = matrix::expand(m, {});
        QCOMPARE(int(cells.size()), 1);
        const matrix::Cell& c = cells[0];
        QVERIFY(c.model.torchscript);
        QCOMPARE(c.model.torchscript->file, QFileInfo(path("models/net.pt")).absoluteFilePath());
        QCOMPARE(c.model.family, QString("torchscript"));
        feasibility::MachineBudget budget;
        budget.hostBytes = 1e12;
        const auto e = feasibility::estimate(c, feasibility::Coefficients(), budget);
        QString basis;
        QCOMPARE(term(e, "parameters", &basis), 2 * 1000 * 4.0);
        QCOMPARE(basis, QString("described"));
        QCOMPARE(term(e, "gradients"), 2 * 800 * 4.0);
        QCOMPARE(term(e, "DDP bucket buffers"), 2 * 800 * 4.0);
        QCOMPARE(term(e, "optimizer state (adam)"), 2 * 800 * 8.0);
        // The export counted the tensors one forward saves: a lower bound, not a measurement.
        QCOMPARE(term(e, "activations", &basis), 2 * (100 + 5000 * 4.0));
        QCOMPARE(basis, QString("estimated"));
        QVERIFY(e.feasible);
    }

    // Calibrated: 2 ranks x 7000 bytes x batch 4, nothing fixed (the baseline holds it), and
    // said to be measured; at four times the input elements, four times that, an estimate.
    void calibratedActivationsAreMeasured() {
        write(path("models/cal.pt"), "not read by the plan");
        write(path("models/cal.json"), description(1000, false, true));
        feasibility::MachineBudget budget;
        budget.hostBytes = 1e12;
        QString basis;
        write(path("m.yaml"),
              matrixText("{name: net, torchscript: models/cal.pt, input: {shape: [3, 8, 8]}, "
                         "target: {classes: 10}}"));
        auto e = feasibility::estimate(matrix::expand(matrix::loadMatrix(path("m.yaml")), {})[0],
                                       feasibility::Coefficients(), budget);
        QCOMPARE(term(e, "activations", &basis), 2 * 7000 * 4.0);
        QCOMPARE(basis, QString("measured"));
        write(path("m.yaml"),
              matrixText("{name: net, torchscript: models/cal.pt, input: {shape: [3, 16, 16]}, "
                         "target: {classes: 10}}"));
        e = feasibility::estimate(matrix::expand(matrix::loadMatrix(path("m.yaml")), {})[0],
                                  feasibility::Coefficients(), budget);
        QCOMPARE(term(e, "activations", &basis), 2 * 4 * 7000 * 4.0);
        QCOMPARE(basis, QString("estimated"));
    }

    // At 3x16x16, four times the elements of the measured input: four times the bytes, and
    // said to be an estimate.
    void anotherInputScalesTheMeasurement() {
        write(path("m.yaml"),
              matrixText("{name: net, torchscript: models/net.pt, input: {shape: [3, 16, 16]}, "
                         "target: {classes: 10}}"));
        const auto cells = matrix::expand(matrix::loadMatrix(path("m.yaml")), {});
        feasibility::MachineBudget budget;
        budget.hostBytes = 1e12;
        const auto e = feasibility::estimate(cells[0], feasibility::Coefficients(), budget);
        QString basis;
        QCOMPARE(term(e, "activations", &basis), 2 * (100 + 4 * 5000 * 4.0));
        QCOMPARE(basis, QString("estimated"));
    }

    void planSaysWhichTermsAreMeasured() {
        write(path("m.yaml"),
              matrixText("{name: net, torchscript: models/net.pt, input: {shape: [3, 8, 8]}, "
                         "target: {classes: 10}}"));
        const CliResult r =
            runCli("commprof", {"plan", path("m.yaml"), "--host-budget-gib", "8"}, 60000);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("1000 parameters (800 trainable) in 2 tensors"), r.out.constData());
        QVERIFY2(r.out.contains("activations estimated"), r.out.constData());
        QVERIFY2(r.out.contains("gradients described"), r.out.constData());
        const CliResult j =
            runCli("commprof", {"plan", path("m.yaml"), "--host-budget-gib", "8", "--json"});
        QCOMPARE(j.exitCode, 0);
        const QJsonObject cell = j.json()["cells"].toArray()[0].toObject();
        QCOMPARE(cell["torchscript"].toObject()["params_trainable"].toDouble(), 800.0);
    }

    void entryErrors_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("message");
        QTest::newRow("no description")
            << "{name: x, torchscript: models/none.pt, input: {shape: [3]}, target: {classes: 2}}"
            << "models/none.json: ";
        // The command that makes it, with the entry's input filled in, runs as printed: a
        // path with a space is quoted for the shell.
        QTest::newRow("no description, a space in its folder")
            << "{name: x, torchscript: \"my models/none.pt\", input: {shape: [3, 8, 8]}, "
               "target: {classes: 5}}"
            << "run: commprof model describe '" + QDir(path("my models")).filePath("none.pt") +
                   "' --input-shape 3,8,8 --classes 5";
        QTest::newRow("no description, tokens")
            << "{name: x, torchscript: models/none.pt, input: {tokens: 16, vocab: 100}}"
            << "run: commprof model describe " + path("models/none.pt") +
                   " --tokens 16 --vocab 100";
        QTest::newRow("not a .pt")
            << "{name: x, torchscript: models/net.json, input: {shape: [3]}, target: {classes: 2}}"
            << "expected a FILE.pt";
        QTest::newRow("no input") << "{name: x, torchscript: models/net.pt}"
                                  << "a torchscript model needs input";
        QTest::newRow("image without target")
            << "{name: x, torchscript: models/net.pt, input: {shape: [3, 8, 8]}}"
            << "an image input needs target: {classes: N}";
        QTest::newRow("tokens with a target")
            << "{name: x, torchscript: models/net.pt, input: {tokens: 8, vocab: 10}, target: "
               "{classes: 2}}"
            << "token input trains on the next token: no target";
        QTest::newRow("shape and tokens")
            << "{name: x, torchscript: models/net.pt, input: {shape: [3], tokens: 8}}"
            << "either shape or tokens and vocab, not both";
        QTest::newRow("params beside torchscript")
            << "{name: x, torchscript: models/net.pt, params: 1e6, input: {tokens: 8, vocab: 10}}"
            << "params";
        QTest::newRow("description that does not add up")
            << "{name: x, torchscript: models/odd.pt, input: {tokens: 8, vocab: 10}}"
            << "its parameter list adds up to 1000 (800 trainable), not params_total 999";
        QTest::newRow("description not JSON")
            << "{name: x, torchscript: models/text.pt, input: {tokens: 8, vocab: 10}}"
            << "models/text.json: not a model description";
        QTest::newRow("sparse gradient")
            << "{name: x, torchscript: models/sparse.pt, input: {tokens: 8, vocab: 10}}"
            << "models/sparse.json: parameter 'b.weight' gets a sparse gradient";
    }
    void entryErrors() {
        QFETCH(QString, entry);
        QFETCH(QString, message);
        write(path("models/odd.json"), description(999));
        write(path("models/text.json"), "name: yaml, not json\n");
        write(path("models/sparse.json"), description(1000, true));
        write(path("e.yaml"), matrixText(entry));
        try {
            matrix::loadMatrix(path("e.yaml"));
            QFAIL("accepted");
        } catch (const matrix::MatrixError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.contains(message), qPrintable(what));
            QVERIFY2(what.contains("e.yaml:4:"), qPrintable(what)); // the entry's line
        }
    }
};

QTEST_GUILESS_MAIN(TstTorchScriptPlan)
#include "tst_torchscript_plan.moc"
