// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_figures_model.h"

#include "analysis/cell_metrics.h"
#include "report/sweep_text.h"

#include <algorithm>
#include <cmath>

namespace commprof::models {
namespace {

QString ms(const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 2) + " ms" : QString("n/a");
}

QString percentOf(const std::optional<double>& part, const std::optional<double>& whole) {
    return part && whole && *whole > 0
               ? QString("%1 % of the step").arg(*part / *whole * 100.0, 0, 'f', 1)
               : QString();
}

// The two instruments over the same rank-steps: the ratio shown is the quotient of the two
// figures shown above it, so the three can never contradict each other.
void addInstrumentRows(std::vector<CellFigure>& rows, const store::CellRow& cell) {
    rows.push_back({"comm. per step, trace", ms(cell.traceCommMs),
                    "rank 0, median of the traced steps (every communication span)"});
    if (!cell.hookTotalMs || !cell.backendTotalMs || cell.agreementSteps <= 0) {
        rows.push_back({"backend / hook, same steps", "n/a",
                        cell.agreementReason.isEmpty() ? "no traced step the hook also recorded"
                                                       : cell.agreementReason,
                        cell.agreementFlagged});
        return;
    }
    const double steps = cell.agreementSteps;
    const QString source = cell.backendSource.isEmpty() ? "none" : cell.backendSource;
    rows.push_back(
        {"hook, per compared step", ms(*cell.hookTotalMs / steps),
         QString("union of the hook's bucket intervals, %1 rank-steps of every traced rank")
             .arg(cell.agreementSteps)});
    rows.push_back(
        {"backend, per compared step", ms(*cell.backendTotalMs / steps),
         QString("union of the backend's own work (%1), the same rank-steps").arg(source)});
    const double tol = analysis::kAgreementTolerance;
    if (cell.hookTraceAgreement) {
        const double r = *cell.hookTraceAgreement;
        const QString verdict = agreementVerdict(r, tol);
        rows.push_back(
            {"backend / hook, same steps", QString::number(r, 'f', 3),
             cell.agreementReason.isEmpty() ? verdict : verdict + ": " + cell.agreementReason,
             cell.agreementFlagged,
             "The two figures above divided: the hook's own span in the trace is never counted as "
             "the backend's"});
    } else {
        rows.push_back({"backend / hook, same steps", "n/a", cell.agreementReason, true});
    }
    if (cell.bucketsCompared > 0) {
        rows.push_back({"buckets matched",
                        QString("%1 of %2").arg(cell.bucketsMatched).arg(cell.bucketsCompared),
                        "hook intervals that contain a backend span",
                        cell.bucketsMatched < cell.bucketsCompared});
    }
}

// The Reducer's own logger, the third instrument, and the overlap tax measured with it.
void addDdpLoggerRows(std::vector<CellFigure>& rows, const store::CellRow& cell) {
    if (cell.ddpLogger.samples > 0) {
        rows.push_back({"DDP logger: backward comm.", ms(cell.ddpLogger.backwardCommMs),
                        QString("c10d::Logger, first bucket launch to the last completion, mean of "
                                "%1 sampled rank-iterations")
                            .arg(cell.ddpLogger.samples)});
    }
    if (cell.ddpLogger.ratio) {
        const QString verdict =
            agreementVerdict(*cell.ddpLogger.ratio, analysis::kAgreementTolerance)
                .replace("backend", "logger");
        rows.push_back(
            {"DDP logger / hook", QString::number(*cell.ddpLogger.ratio, 'f', 3),
             cell.ddpLogger.reason.isEmpty() ? verdict : verdict + ": " + cell.ddpLogger.reason,
             cell.ddpLogger.flagged,
             "The logger's backward communication over the extent of the hook's bucket intervals, "
             "the same iterations"});
    } else {
        rows.push_back({"DDP logger / hook", "n/a", cell.ddpLogger.reason, false});
    }
    if (cell.overlapTaxMs && cell.overlapTaxPercent) {
        rows.push_back(
            {"overlap tax",
             QString("%1 (%2 %)")
                 .arg(ms(cell.overlapTaxMs))
                 .arg(*cell.overlapTaxPercent, 0, 'f', 1),
             QString("backward compute (DDP logger) %1 against %2 in %3, its hook: local twin")
                 .arg(ms(cell.ddpLogger.backwardComputeMs),
                      ms(*cell.ddpLogger.backwardComputeMs - *cell.overlapTaxMs),
                      cell.overlapTwin)});
    }
}

void addRankRows(std::vector<CellFigure>& rows, const store::CellRow& cell,
                 const std::vector<store::RankFiguresRow>& ranks) {
    if (cell.slowestRank) {
        rows.push_back({"slowest rank", QString("rank %1").arg(*cell.slowestRank),
                        cell.medianSkewMs ? QString("last to arrive at most steps; step times "
                                                    "differ by %1 across ranks (median)")
                                                .arg(ms(cell.medianSkewMs))
                                          : QString("last to arrive at most steps")});
    }
    for (const store::RankFiguresRow& r : ranks) {
        const QString value = QString("step %1 · comm %2 · exposed %3")
                                  .arg(ms(r.stepMs), ms(r.commMs), ms(r.exposedCommMs));
        const QString note = !r.traceError.isEmpty() ? r.traceError
                             : r.agreement
                                 ? QString("backend / hook %1%2")
                                       .arg(*r.agreement, 0, 'f', 3)
                                       .arg(r.agreementFlagged ? ": " + r.agreementReason : "")
                                 : QString("no trace");
        rows.push_back({QString("rank %1").arg(r.rank), value, note,
                        r.agreementFlagged || !r.traceError.isEmpty()});
    }
}

// Every figure of the prediction is one the text beside it derives from, as in the report.
void addPredictionRows(std::vector<CellFigure>& rows, const store::StoredPrediction& p) {
    if (!p.prediction) {
        rows.push_back({"all-reduce predicted", "n/a", p.note, false});
        return;
    }
    const analysis::DdpPrediction& d = *p.prediction;
    const auto msOf = [](double us) { return QString::number(us / 1000.0, 'f', 2) + " ms"; };
    rows.push_back({"all-reduce predicted", msOf(d.predictedUsPerStep),
                    QString("per step, from %1: %2 alone, at the CPU share each bucket had")
                        .arg(p.sweepCell, msOf(d.sweepUsPerStep))});
    rows.push_back(
        {"all-reduce measured", msOf(d.measuredUsPerStep),
         QString("the collective's own time (last rank's span), median of %1 steps, range %2 .. %3")
             .arg(d.steps)
             .arg(msOf(d.measuredMinUs), msOf(d.measuredMaxUs))});
    rows.push_back({"prediction off by", QString("%1 %").arg(d.offBy() * 100.0, 0, 'f', 1),
                    report::spreadVerdict(d), !d.withinRange()});
    rows.push_back({"waiting for the last rank", msOf(d.waitUsPerStep),
                    "per step, the first rank's wait for the last, summed over buckets"});
}

void addSweepRows(std::vector<CellFigure>& rows, const std::vector<store::StoredSweep>& sweeps) {
    for (const store::StoredSweep& s : sweeps) {
        const analysis::LinearFit& f = s.fit;
        if (!s.series.unsupported.isEmpty()) {
            rows.push_back({s.series.kind, "not measured", s.series.unsupported, false});
            continue;
        }
        double peak = 0, at = 0;
        for (const analysis::SweepPoint& pt : s.series.points) {
            if (pt.busbwGBps && *pt.busbwGBps > peak) {
                peak = *pt.busbwGBps;
                at = pt.bytes;
            }
        }
        rows.push_back(
            {s.series.kind + " peak busbw", QString("%1 GB/s").arg(peak, 0, 'f', 2),
             QString("at %1 B, %2 sizes").arg(at, 0, 'f', 0).arg(s.series.points.size())});
        rows.push_back({s.series.kind + " fit",
                        f.refused ? QString("refused")
                                  : QString("%1 us + bytes / %2 GB/s")
                                        .arg(f.alphaUs, 0, 'f', 1)
                                        .arg(f.asymptoticGBps(), 0, 'f', 2),
                        f.refused
                            ? f.reason
                            : QString("R^2 %1 over %2 sizes").arg(f.r2, 0, 'f', 3).arg(f.sizes),
                        false});
    }
}

} // namespace

QString agreementVerdict(double backendOverHook, double tolerance) {
    const double deviation = backendOverHook - 1.0;
    const QString band = QString("±%1 %").arg(tolerance * 100.0, 0, 'g', 3);
    if (std::abs(deviation) <= tolerance) {
        return QString("agree within %1").arg(band);
    }
    return QString("backend %1 % %2 hook (beyond %3)")
        .arg(std::abs(deviation) * 100.0, 0, 'f', 1)
        .arg(deviation > 0 ? "above" : "below", band);
}

CellFiguresModel::CellFiguresModel(QObject* parent)
    : RowTableModel({memberColumn("figure", &CellFigure::figure),
                     memberColumn("value", &CellFigure::value),
                     memberColumn("meaning", &CellFigure::note)},
                    parent) {}

void CellFiguresModel::setCell(const store::CellRow* cell,
                               const std::vector<store::RankFiguresRow>* ranks,
                               const store::StoredPrediction* prediction,
                               const std::vector<store::StoredSweep>* sweeps) {
    std::vector<CellFigure> rows;
    if (cell) {
        rows.push_back({"status", cell->status, cell->reasons.join("; "), !cell->complete()});
        if (cell->isSweep() && sweeps) {
            addSweepRows(rows, *sweeps);
        } else if (!cell->isSweep() && cell->complete()) {
            rows.push_back({"step (median)", ms(cell->stepMs), {}});
            for (const auto& [name, part] : {std::pair{"compute", cell->computeMs},
                                             {"exposed communication", cell->exposedCommMs},
                                             {"bookkeeping", cell->bookkeepingMs}}) {
                rows.push_back({name, ms(part), percentOf(part, cell->stepMs)});
            }
            if (cell->overlapEfficiency) {
                rows.push_back({"overlap efficiency",
                                QString::number(*cell->overlapEfficiency * 100.0, 'f', 1) + " %",
                                "of communication hidden by compute"});
            }
            addInstrumentRows(rows, *cell);
            addDdpLoggerRows(rows, *cell);
            if (prediction) {
                addPredictionRows(rows, *prediction);
            }
            if (ranks) {
                addRankRows(rows, *cell, *ranks);
            }
        }
    }
    setRows(std::move(rows));
}

int CellFiguresModel::rowOf(const QString& figure) const {
    const auto& rows = rowValues();
    const auto it = std::ranges::find(rows, figure, &CellFigure::figure);
    return it == rows.end() ? -1 : int(it - rows.begin());
}

QVariant CellFiguresModel::rowData(const CellFigure& row, int column, int role) const {
    if (role == FlaggedRole) {
        return row.flagged;
    }
    if (role == Qt::ToolTipRole) {
        return row.tip.isEmpty() ? row.note
                                 : row.tip; // the meaning, also where its column is hidden
    }
    return RowTableModel::rowData(row, column, role);
}

} // namespace commprof::models
