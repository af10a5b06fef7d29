// SPDX-License-Identifier: GPL-3.0-or-later
// The flat table models that no view test reads cell by cell: the trace inspector's step
// table and the determinism view's verdict and discriminator tables, each against figures
// written out by hand (headers, one decimal for microseconds, the totals row, the roles each
// answers and those it leaves empty).

#include "models/divergence_models.h"
#include "models/step_table_model.h"

#include <QTest>

using namespace commprof;

namespace {

QString cell(const QAbstractItemModel& m, int row, int column, int role = Qt::DisplayRole) {
    return m.data(m.index(row, column), role).toString();
}

QStringList headers(const QAbstractItemModel& m) {
    QStringList out;
    for (int c = 0; c < m.columnCount(); ++c) {
        out << m.headerData(c, Qt::Horizontal).toString();
    }
    return out;
}

} // namespace

class TstTableModels : public QObject {
    Q_OBJECT
private slots:
    void stepTableShowsEachStepAndTheTotals() {
        trace::TraceSummary s;
        trace::StepMetrics a;
        a.step = 4;
        a.stepUs = 1000.04;
        a.computeUs = 600.26;
        a.commUs = 300;
        a.bookkeepingUs = 12.36;
        a.overlapUs = 150;
        a.exposedCommUs = 150;
        a.overlapEfficiency = 0.5;
        trace::StepMetrics b;
        b.step = 5;
        b.stepUs = 2;
        s.steps = {a, b};
        s.totals.stepUs = 1002.04;
        s.totals.overlapEfficiency = 0.25;
        models::StepTableModel m;
        QCOMPARE(m.rowCount(), 0);
        m.setSummary(s);
        QCOMPARE(headers(m),
                 QStringList({"step", "step µs", "compute µs", "comm µs", "bookkeeping µs",
                              "overlap µs", "exposed µs", "overlap eff."}));
        QCOMPARE(m.rowCount(), 3);
        QStringList first;
        for (int c = 0; c < m.columnCount(); ++c) {
            first << cell(m, 0, c);
        }
        QCOMPARE(first, QStringList(
                            {"4", "1000.0", "600.3", "300.0", "12.4", "150.0", "150.0", "50.0 %"}));
        QCOMPARE(m.data(m.index(0, 0)).typeId(), QMetaType::Int);
        QCOMPARE(cell(m, 1, models::StepTableModel::Step), QString("5"));
        QCOMPARE(cell(m, 1, models::StepTableModel::Efficiency), QString("n/a"));
        QCOMPARE(cell(m, 2, models::StepTableModel::Step), QString("total"));
        QCOMPARE(cell(m, 2, models::StepTableModel::StepUs), QString("1002.0"));
        QCOMPARE(cell(m, 2, models::StepTableModel::Efficiency), QString("25.0 %"));
        // Figures right-aligned; no tooltip (the header says it) and nothing past the rows.
        QCOMPARE(m.data(m.index(1, 3), Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
        QVERIFY(!m.data(m.index(0, 1), Qt::ToolTipRole).isValid());
        QCOMPARE(m.rowCount(), 3);
        QVERIFY(!m.index(3, 0).isValid());
        m.setSummary({});
        QCOMPARE(m.rowCount(), 0);
    }

    void verdictsAndDiscriminatorsShowTheReport() {
        determinism::DiffReport r;
        determinism::RankDivergence origin;
        origin.rank = 1;
        origin.verdict = determinism::Verdict::Origin;
        origin.first = determinism::FpRecord{};
        origin.first->id = "aten::add:3";
        origin.first->iteration = 7;
        origin.inputsMatched = true;
        origin.note = "same inputs";
        determinism::RankDivergence clean;
        clean.rank = 0;
        clean.note = "identical";
        r.ranks = {origin, clean};
        r.discriminators = {{"add f32[4] -> f32[4]", 2, 1}};

        models::RankVerdictModel verdicts;
        verdicts.setReport(r);
        QCOMPARE(headers(verdicts),
                 QStringList({"rank", "verdict", "first differing record", "iteration", "why"}));
        QCOMPARE(verdicts.rowCount(), 2);
        QCOMPARE(cell(verdicts, 0, 0), QString("1"));
        QCOMPARE(cell(verdicts, 0, 1), QString("origin"));
        QCOMPARE(cell(verdicts, 0, 2), QString("aten::add:3"));
        QCOMPARE(cell(verdicts, 0, 3), QString("7"));
        QCOMPARE(cell(verdicts, 0, 4), QString("inputs matched; same inputs"));
        QCOMPARE(cell(verdicts, 0, 4, Qt::ToolTipRole), QString("inputs matched; same inputs"));
        QCOMPARE(cell(verdicts, 1, 1), QString("clean"));
        QCOMPARE(cell(verdicts, 1, 2), QString());
        QVERIFY(!verdicts.data(verdicts.index(1, 3)).isValid());
        QCOMPARE(cell(verdicts, 1, 4), QString("identical"));
        QVERIFY(!verdicts.data(verdicts.index(0, 0), Qt::UserRole).isValid());

        models::DiscriminatorModel disc;
        disc.setReport(r);
        QCOMPARE(headers(disc), QStringList({"same op, inputs -> outputs (shapes, dtypes)", "clean",
                                             "divergent"}));
        QCOMPARE(disc.rowCount(), 1);
        QCOMPARE(cell(disc, 0, 0), QString("add f32[4] -> f32[4]"));
        QCOMPARE(disc.data(disc.index(0, 1)).toInt(), 2);
        QCOMPARE(disc.data(disc.index(0, 2)).toInt(), 1);
    }
};

QTEST_GUILESS_MAIN(TstTableModels)
#include "tst_table_models.moc"
