// SPDX-License-Identifier: GPL-3.0-or-later
#include "recommendation_text.h"

#include "analysis/cap_advice.h"
#include "analysis/number_text.h"
#include "results/cell_files.h"
#include "results/json_kind.h"
#include "spec/comm_hooks.h"
#include "spec/mapped.h"
#include "trace/json_null.h"

#include <QJsonArray>

namespace commprof::report {

using analysis::CapCandidate;
using analysis::CapGroup;
using analysis::mb;
using trace::numberOrNull;
using trace::textOrNull;

namespace {

// ", batch_size 8": the settings that tell the group apart, as a heading ends; empty without.
QString settingsSuffix(const CapGroup& g) {
    QStringList parts;
    for (auto it = g.settings.begin(); it != g.settings.end(); ++it) {
        const QJsonValue v = it.value();
        parts << it.key() + " " +
                     (v.isString()   ? v.toString()
                      : v.isDouble() ? QString::number(v.toDouble(), 'g', 6)
                                     : results::compactJson(v));
    }
    return parts.isEmpty() ? QString() : ", " + parts.join(", ");
}

QJsonObject toJson(const CapCandidate& c) {
    return {{"bucket_cap_mb", c.capMb},
            {"buckets", c.buckets},
            {"predicted_step_ms", c.predictedStepMs},
            {"predicted_exposed_ms", c.predictedExposedMs},
            {"measured_step_ms", numberOrNull(c.measuredStepMs)},
            {"held_out_step_ms", numberOrNull(c.heldOutStepMs)},
            {"measured_cell", textOrNull(c.measuredCell)},
            {"error", numberOrNull(c.error())},
            {"step_standard_error_ms", numberOrNull(c.stepStandardErrorMs)},
            {"spread_from", textOrNull(c.spreadFrom)}};
}

QJsonObject toJson(const CapGroup& g) {
    QJsonObject o{{"model", g.model},
                  {"layer", g.layer},
                  {"world_size", g.worldSize},
                  {"link", g.link},
                  {"hook", g.hook},
                  {"first_bucket_mb", g.firstBucketMb},
                  {"cells", QJsonArray::fromStringList(g.cells)},
                  {"recommended_bucket_cap_mb", numberOrNull(g.recommendedCapMb)},
                  {"current_bucket_cap_mb", numberOrNull(g.advice.currentCapMb)},
                  {"current_from", g.advice.currentFrom},
                  {"saving_ms", numberOrNull(g.advice.savingMs)},
                  {"uncertainty_ms", numberOrNull(g.advice.uncertaintyMs)},
                  {"saving_from", textOrNull(g.advice.savingFrom)},
                  {"spread_from", textOrNull(g.advice.spreadFrom)},
                  {"run_drift", numberOrNull(g.drift.relative)},
                  {"run_drift_cells", g.drift.cells},
                  {"fastest_bucket_cap_mb", numberOrNull(g.fastestCapMb)},
                  {"recommendation", actionLine(g)},
                  {"mape", numberOrNull(g.mape)},
                  {"measured", g.measured()},
                  {"candidates", results::jsonArray(g.candidates, [](const CapCandidate& c) {
                       return toJson(c);
                   })}};
    if (!g.settings.isEmpty()) {
        o["settings"] = g.settings;
    }
    if (!g.reason.isEmpty()) {
        o["reason"] = g.reason;
        return o;
    }
    if (!g.recommendedCapMb) {
        o["reason"] = g.advice.reason; // predicted, but nothing to recommend
    }
    o["ready_times_from"] = g.readyTimesFrom;
    o["sweep_cell"] = g.sweepCell;
    o["alpha_us"] = g.fit.alphaUs;
    o["beta_us_per_byte"] = g.fit.betaUsPerByte;
    o["scale"] = g.scale;
    o["held_out"] = g.heldOut;
    o["left_out"] = QJsonArray::fromStringList(g.left);
    return o;
}

QString ms(double v) {
    return QString::number(v, 'f', 2);
}

} // namespace

QString groupName(const CapGroup& g) {
    return QString("%1 on %2, world size %3, hook %4")
        .arg(g.model, results::networkOf(g.layer, g.link))
        .arg(g.worldSize)
        .arg(g.hook);
}

QString actionLine(const CapGroup& g) {
    const analysis::CapAdvice& a = g.advice;
    QString basis = "predicted; the model's held-out error and the measured spread";
    if (a.savingFrom == "measured") {
        basis = a.spreadFrom == "repeats" ? "measured at both caps, spread across repeats"
                : a.spreadFrom == "run drift"
                    ? QString("measured at both caps, with the drift between runs: %1 % a cell, "
                              "from %2 cells of equal buckets")
                          .arg(*g.drift.relative * 100, 0, 'f', 1)
                          .arg(g.drift.cells)
                    : "measured at both caps; the drift between runs is not in it: add repeats";
    }
    if (!g.recommendedCapMb) {
        if (g.advice.reason.startsWith("not predicted")) {
            return "no recommendation: " + g.reason;
        }
        QString line = "no recommendation: " + a.reason;
        if (a.savingMs && a.uncertaintyMs && g.fastestCapMb) {
            line += QString(" (bucket_cap_mb %1 -> %2: %3 ms a step, ±%4 ms, %5)")
                        .arg(mb(*a.currentCapMb), mb(*g.fastestCapMb), ms(-*a.savingMs),
                             ms(*a.uncertaintyMs), basis);
        }
        return line;
    }
    if (*g.recommendedCapMb == *a.currentCapMb) {
        return QString("keep bucket_cap_mb: %1: no cap is faster%2")
            .arg(mb(*a.currentCapMb), a.currentFrom == "ddp_default"
                                          ? QString(" (now DDP's default, assumed)")
                                          : QString());
    }
    return QString("set bucket_cap_mb: %1 (now %2%3): -%4 ms a step (±%5 ms, %6)")
        .arg(mb(*g.recommendedCapMb), mb(*a.currentCapMb),
             a.currentFrom == "ddp_default" ? QString(", DDP's default, assumed") : QString(),
             ms(*a.savingMs), ms(*a.uncertaintyMs), basis);
}

QJsonObject toJson(const analysis::Recommendations& r) {
    QJsonObject out{
        {"groups", results::jsonArray(r.groups, [](const CapGroup& g) { return toJson(g); })}};
    if (!r.dropped.empty()) {
        out["dropped"] = results::jsonArray(r.dropped, [](const analysis::DroppedCell& d) {
            return QJsonObject{{"cell", d.cell},
                               {"status", d.status},
                               {"reasons", QJsonArray::fromStringList(d.reasons)}};
        });
    }
    return out;
}

QString groupLabel(const CapGroup& g) {
    return groupName(g) + settingsSuffix(g);
}

QString describe(const CapGroup& g) {
    QString out =
        QString("%1, first bucket %2 MiB%3 (%4)\n")
            .arg(groupName(g), mb(g.firstBucketMb), settingsSuffix(g), g.cells.join(", "));
    if (!g.reason.isEmpty()) {
        return out + QString("  measured caps %1 MiB; not predicted: %2\n")
                         .arg(spec::mapped<QStringList>(g.measuredCapsMb, mb).join(", "), g.reason);
    }
    out += "  " + actionLine(g) + "\n"; // what to do first, the numbers it rests on below
    if (spec::sendsNothing(g.hook.toStdString())) {
        out += QString("  ready times from %1's bucket launches; the local hook sends nothing, so "
                       "its buckets cost nothing\n")
                   .arg(g.readyTimesFrom);
    } else {
        out += QString("  ready times from %1's bucket launches; cost %2 x (%3 us + %4 us/B x wire "
                       "bytes) per collective: %5's all_reduce fit, scaled by what the group's "
                       "buckets exposed\n")
                   .arg(g.readyTimesFrom)
                   .arg(g.scale, 0, 'f', 2)
                   .arg(g.fit.alphaUs, 0, 'f', 1)
                   .arg(g.fit.betaUsPerByte, 0, 'g', 3)
                   .arg(g.sweepCell);
    }
    for (const QString& left : g.left) {
        out += "  left out of the calibration: " + left + "\n";
    }
    out += "  cap MiB  buckets  predicted step  predicted exposed  held out  measured step  "
           "error\n";
    const auto ms = [](const std::optional<double>& v, int width) {
        return QString(v ? QString::number(*v, 'f', 2) + " ms" : QString("-"))
            .rightJustified(width);
    };
    for (const CapCandidate& c : g.candidates) {
        const auto e = c.error();
        out += QString("  %1  %2  %3 ms  %4 ms  %5  %6  %7\n")
                   .arg(mb(c.capMb), 7)
                   .arg(c.buckets, 7)
                   .arg(c.predictedStepMs, 11, 'f', 2)
                   .arg(c.predictedExposedMs, 14, 'f', 2)
                   .arg(ms(c.heldOutStepMs, 8), ms(c.measuredStepMs, 13))
                   .arg(e ? QString("%1 %").arg(*e * 100, 0, 'f', 1) : QString("-"), 7);
    }
    out += QString("  fastest: %1 MiB\n").arg(mb(*g.fastestCapMb));
    if (g.advice.savingMs && g.advice.uncertaintyMs) {
        out += QString("  saving %1 ms a step at %2 MiB against %3 MiB (now, %4), uncertainty "
                       "%5 ms: %6\n")
                   .arg(*g.advice.savingMs, 0, 'f', 2)
                   .arg(mb(*g.fastestCapMb), mb(*g.advice.currentCapMb), g.advice.currentFrom)
                   .arg(*g.advice.uncertaintyMs, 0, 'f', 2)
                   .arg(g.advice.savingFrom == "measured"
                            ? QString("both measured; the standard errors of their steps")
                            : QString("predicted; the held-out error of each prediction and the "
                                      "standard errors of the measured steps"));
    }
    out += g.mape ? QString("  MAPE: %1 % over %2 measured caps, %3 (measured: median of rank "
                            "0's step_ms over the recorded iterations)\n")
                        .arg(*g.mape * 100, 0, 'f', 1)
                        .arg(g.measured())
                        .arg(g.heldOut ? QString("each predicted from the other caps' cells")
                                       : QString("some in sample: no other cap's cells to "
                                                 "predict them from"))
                  : QString("  MAPE: none (no cap of this group was measured)\n");
    return out;
}

QString describeDropped(const analysis::Recommendations& r) {
    QString out;
    for (const analysis::DroppedCell& d : r.dropped) {
        out += QString("left out: %1 (%2): %3\n").arg(d.cell, d.status, d.reasons.join("; "));
    }
    return out;
}

QString otherAdviceOfModel(const std::vector<CapGroup>& groups, const CapGroup& applied) {
    QStringList other;
    for (const CapGroup& g : groups) {
        if (g.model == applied.model && g.recommendedCapMb &&
            g.recommendedCapMb != applied.recommendedCapMb) {
            other << QString("%1: %2 MiB").arg(groupName(g)).arg(*g.recommendedCapMb, 0, 'g', 6);
        }
    }
    return other.join("; ");
}

} // namespace commprof::report
