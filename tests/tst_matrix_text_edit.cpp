// SPDX-License-Identifier: GPL-3.0-or-later
// The designer's edits of a matrix's text (its budgets, an added model): each expected text is
// written out by hand, so every line the edit should not touch is compared as the user wrote it,
// and the result is read back by the matrix parser.

#include "matrix/matrix.h"
#include "matrix/matrix_text_edit.h"

#include <QTest>

using namespace commprof;

namespace {

const QString kTail = "layers: [{name: gloo_cpu}]\nworld_sizes: [1]\n";

matrix::BudgetSpec budget(std::optional<double> host, std::optional<double> device,
                          double reserve) {
    matrix::BudgetSpec b;
    b.hostGib = host;
    b.deviceGib = device;
    b.reserveGib = reserve;
    return b;
}

QStringList modelNames(const QString& yaml) {
    QStringList names;
    for (const auto& m : matrix::parseMatrix(yaml.toUtf8(), "t.yaml").models) {
        names << m.name;
    }
    return names;
}

} // namespace

class TstMatrixTextEdit : public QObject {
    Q_OBJECT
private slots:
    void budgetReplacesItsBlockOnly_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        const QString head = "name: t  # the name\nmodels: [{name: a, params: 1e6}]\n";
        QTest::newRow("flow, between keys, a comment after")
            << head +
                   "budget: {host_gib: auto, device_gib: auto, reserve_gib: 1.0}\n"
                   "# about the layers\n" +
                   kTail
            << head +
                   "budget: {host_gib: 2.5, device_gib: auto, reserve_gib: 1}\n"
                   "# about the layers\n" +
                   kTail;
        QTest::newRow("block, a blank line after")
            << head + "budget:\n  host_gib: 4\n  reserve_gib: 0.5\n\n" + kTail
            << head + "budget: {host_gib: 2.5, device_gib: auto, reserve_gib: 0.5}\n\n" + kTail;
        QTest::newRow("none, no final newline")
            << head + "layers: [{name: gloo_cpu}]\nworld_sizes: [1]"
            << head + "layers: [{name: gloo_cpu}]\nworld_sizes: [1]\n"
                      "budget: {host_gib: 2.5, device_gib: auto, reserve_gib: 1}\n";
        QTest::newRow("last key, comments after it")
            << head + kTail + "budget: {host_gib: 9}\n# end\n\n"
            << head + kTail +
                   "budget: {host_gib: 2.5, device_gib: auto, reserve_gib: 1}\n# end\n\n";
        QTest::newRow("last key, no final newline")
            << head + kTail + "budget: {host_gib: 9}"
            << head + kTail + "budget: {host_gib: 2.5, device_gib: auto, reserve_gib: 1}";
    }
    void budgetReplacesItsBlockOnly() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        const double reserve = matrix::parseMatrix(before.toUtf8(), "t.yaml").budget.reserveGib;
        const matrix::TextEdit edit =
            matrix::budgetEdit(before, "t.yaml", budget(2.5, std::nullopt, reserve));
        const QString text = matrix::applied(before, edit);
        QCOMPARE(text, after);
        const matrix::Matrix m = matrix::parseMatrix(text.toUtf8(), "t.yaml");
        QCOMPARE(*m.budget.hostGib, 2.5);
        QVERIFY(!m.budget.deviceGib);
        QCOMPARE(m.budget.reserveGib, reserve);
    }

    void aModelIsAddedAsTheListIsWritten_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        const QString e = "{name: z, params: 3e6}";
        QTest::newRow("flow") << "name: t\nmodels: [{name: a, params: 1e6}]\n" + kTail
                              << "name: t\nmodels: [{name: a, params: 1e6}, " + e + "]\n" + kTail;
        QTest::newRow("flow, ']' quoted and in a comment")
            << "name: t\nmodels: [\n  {name: \"a]\", params: 1e6},  # a ] here\n"
               "  {name: b, params: 2e6}  # last ]\n]\n" +
                   kTail
            << "name: t\nmodels: [\n  {name: \"a]\", params: 1e6},  # a ] here\n"
               "  {name: b, params: 2e6}, " +
                   e + "  # last ]\n]\n" + kTail;
        QTest::newRow("flow, an apostrophe inside a plain name")
            << "name: t\nmodels: [{name: bob's, params: 1e6}]\n" + kTail
            << "name: t\nmodels: [{name: bob's, params: 1e6}, " + e + "]\n" + kTail;
        QTest::newRow("flow, empty")
            << "name: t\nmodels: []\n" + kTail << "name: t\nmodels: [" + e + "]\n" + kTail;
        QTest::newRow("block, a comment after")
            << "name: t\nmodels:\n  - {name: a, params: 1e6}\n  - name: b\n    params: 2e6\n"
               "# the layers\n" +
                   kTail
            << "name: t\nmodels:\n  - {name: a, params: 1e6}\n  - name: b\n    params: 2e6\n  - " +
                   e + "\n# the layers\n" + kTail;
        QTest::newRow("block at column 0, last key")
            << "name: t\n" + kTail + "models:\n- {name: a, params: 1e6}"
            << "name: t\n" + kTail + "models:\n- {name: a, params: 1e6}\n- " + e + "\n";
        QTest::newRow("empty value")
            << "name: t\nmodels:\n" + kTail << "name: t\nmodels: [" + e + "]\n" + kTail;
        QTest::newRow("no models key")
            << "name: t\n" + kTail << "name: t\n" + kTail + "models: [" + e + "]\n";
    }
    void aModelIsAddedAsTheListIsWritten() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        const QString text = matrix::applied(
            before, matrix::appendModelEdit(before, "t.yaml", "{name: z, params: 3e6}"));
        QCOMPARE(text, after);
        QCOMPARE(modelNames(text).last(), QString("z"));
    }

    // The cap study's Apply to matrix: one model's entry gets the value, as it is written; the
    // defaults and every other entry keep theirs.
    void aModelsValueIsSetInItsEntryOnly_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        const QString d = "name: t\ndefaults:\n  bucket_cap_mb: [1, 25]\n";
        QTest::newRow("flow entry, added")
            << "a"
            << d + "models:\n  - {name: a, params: 1e6}\n  - {name: b, params: 2e6}\n" + kTail
            << d +
                   "models:\n  - {name: a, params: 1e6, bucket_cap_mb: 4}\n"
                   "  - {name: b, params: 2e6}\n" +
                   kTail;
        QTest::newRow("flow entry, its list replaced")
            << "a" << d + "models:\n  - {name: a, params: 1e6, bucket_cap_mb: [1, 25]}\n" + kTail
            << d + "models:\n  - {name: a, params: 1e6, bucket_cap_mb: 4}\n" + kTail;
        QTest::newRow("flow entry, a value before others")
            << "a" << d + "models:\n  - {name: a, bucket_cap_mb: 25, params: 1e6}\n" + kTail
            << d + "models:\n  - {name: a, bucket_cap_mb: 4, params: 1e6}\n" + kTail;
        QTest::newRow("in a flow list, the second")
            << "b" << d + "models: [{name: a, params: 1e6}, {name: b, params: 2e6}]\n" + kTail
            << d + "models: [{name: a, params: 1e6}, {name: b, params: 2e6, bucket_cap_mb: 4}]\n" +
                   kTail;
        QTest::newRow("block entry, added as its last line")
            << "b"
            << d + "models:\n  - {name: a, params: 1e6}\n  - name: b\n    params: 2e6\n" + kTail
            << d +
                   "models:\n  - {name: a, params: 1e6}\n  - name: b\n    params: 2e6\n"
                   "    bucket_cap_mb: 4\n" +
                   kTail;
        QTest::newRow("block entry, its value replaced, the comment kept")
            << "b"
            << d + "models:\n  - name: b\n    bucket_cap_mb: [1, 25]  # study\n    params: 2e6\n" +
                   kTail
            << d + "models:\n  - name: b\n    bucket_cap_mb: 4  # study\n    params: 2e6\n" + kTail;
    }
    void aModelsValueIsSetInItsEntryOnly() {
        QFETCH(QString, model);
        QFETCH(QString, before);
        QFETCH(QString, after);
        const QString text = matrix::applied(
            before, matrix::modelValueEdit(before, "t.yaml", model, "bucket_cap_mb", "4"));
        QCOMPARE(text, after);
        QVERIFY(!modelNames(text).isEmpty()); // it parses
    }

    void whatCannotBeEditedIsSaid() {
        // A matrix written as one flow mapping, a models value that is no list, bad YAML: each
        // an error at its line, and no edit.
        const auto error = [](const std::function<void()>& edit) {
            try {
                edit();
            } catch (const matrix::MatrixError& e) {
                return QString("%1:%2 %3").arg(e.file).arg(e.line).arg(e.what());
            }
            return QString();
        };
        const QString flow = "{name: t, models: [{name: a}], " + kTail.left(26) + "}\n";
        QVERIFY(error([&] {
                    matrix::budgetEdit(flow, "t.yaml", budget(1, 1, 1));
                }).contains("block mapping"));
        QVERIFY(error([&] {
                    matrix::appendModelEdit("name: t\nmodels: 3\n", "t.yaml", "{}");
                }).startsWith("t.yaml:2 "));
        QVERIFY(error([&] {
                    matrix::budgetEdit("name: t\nmodels: [\n", "t.yaml", {});
                }).startsWith("t.yaml:"));
        QVERIFY(error([&] {
                    matrix::modelValueEdit("name: t\nmodels: [{name: a}]\n", "t.yaml", "zz",
                                           "bucket_cap_mb", "4");
                }).contains("no model entry named 'zz'"));
    }
};

QTEST_GUILESS_MAIN(TstMatrixTextEdit)
#include "tst_matrix_text_edit.moc"
