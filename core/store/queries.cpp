// SPDX-License-Identifier: GPL-3.0-or-later
#include "queries.h"

#include "store/cell_sql.h"
#include "store/overlap_tax.h"

namespace commprof::store {

std::vector<CellRow> cells(Database& db, const QString& runDir) {
    Statement s = db.prepare(
        QString("SELECT %1 FROM cells WHERE (?1 IS NULL OR run_dir = ?1) ORDER BY run_dir, id")
            .arg(cellsSelectList()));
    s.bind(runDir.isEmpty() ? QVariant() : QVariant(runDir));
    std::vector<CellRow> out;
    while (s.step()) {
        out.push_back(cellRowFrom(s));
    }
    fillOverlapTax(out);
    return out;
}

Statement bucketsQuery(Database& db) {
    return db.prepare("SELECT rank, iter, idx, bytes, nparams, start_ns, end_ns FROM buckets WHERE "
                      "cell_key = ? ORDER BY rank, iter, idx");
}

std::vector<BucketRow> buckets(Statement& s, const QString& cellKey) {
    s.bind(cellKey);
    std::vector<BucketRow> out = readRows<BucketRow>(s, [](BucketRow& b) {
        return std::tie(b.rank, b.iter, b.index, b.bytes, b.nparams, b.startNs, b.endNs);
    });
    s.reset();
    return out;
}

std::vector<BucketRow> buckets(Database& db, const QString& cellKey) {
    Statement s = bucketsQuery(db);
    return buckets(s, cellKey);
}

std::vector<trace::StepMetrics> steps(Database& db, const QString& cellKey) {
    Statement s =
        db.prepare("SELECT step, start_us, end_us, step_us, compute_us, comm_us, bookkeeping_us, "
                   "overlap_us, exposed_comm_us, overlap_efficiency, comm_overhead_fraction FROM "
                   "trace_steps WHERE cell_key = ? AND rank = 0 ORDER BY step");
    s.bind(cellKey);
    return readRows<trace::StepMetrics>(s, [](trace::StepMetrics& m) {
        return std::tie(m.step, m.startUs, m.endUs, m.stepUs, m.computeUs, m.commUs,
                        m.bookkeepingUs, m.overlapUs, m.exposedCommUs, m.overlapEfficiency,
                        m.commOverheadFraction);
    });
}

std::vector<RankFiguresRow> rankFigures(Database& db, const QString& cellKey) {
    Statement s = db.prepare("SELECT rank, step_ms, comm_ms, exposed_comm_ms, hook_ms, backend_ms, "
                             "agreement, agreement_flagged, agreement_reason, trace_error FROM "
                             "rank_figures WHERE cell_key = ? ORDER BY rank");
    s.bind(cellKey);
    return readRows<RankFiguresRow>(s, [](RankFiguresRow& r) {
        return std::tie(r.rank, r.stepMs, r.commMs, r.exposedCommMs, r.hookMs, r.backendMs,
                        r.agreement, r.agreementFlagged, r.agreementReason, r.traceError);
    });
}

QJsonObject toJson(const CellRow& c) {
    QJsonObject out;
    for (const CellColumn& column : cellColumns()) {
        if (column.json()) {
            out.insert(column.json(), QJsonValue::fromVariant(column.get(c, {})));
        }
    }
    // Each axis also under its matrix key's name (docs/cli.md), beside the columns of the same.
    for (auto it = c.axes.begin(); it != c.axes.end(); ++it) {
        if (out.contains(it.key())) {
            continue;
        }
        // As the matrix writes the value: a number, true / false, or a name.
        const QString text = it.value().toString();
        bool isNumber = false;
        const double number = text.toDouble(&isNumber);
        out.insert(it.key(), text == "true" || text == "false" ? QJsonValue(text == "true")
                             : isNumber                        ? QJsonValue(number)
                                                               : QJsonValue(text));
    }
    return out;
}

} // namespace commprof::store
