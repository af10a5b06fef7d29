// SPDX-License-Identifier: GPL-3.0-or-later
#include "report_data.h"

#include "inputs/matrix_cap.h"
#include "matrix/spec_names.h"
#include "report/cells_table.h"
#include "report/macro_sheet.h"
#include "report/recommendation_text.h"
#include "report/text_fields.h"
#include "results/json_kind.h"
#include "results/results_folder.h"
#include "spec/comm_hooks.h"
#include "store/study_cells.h"
#include "trace/trace_input.h"

#include <QSet>
#include <QStringList>

namespace commprof::report {
namespace {

// The cell's hook ("allreduce" where the cell names none).
QString hookOf(const store::CellRow& c) {
    const QString hook = c.axes.value("hook").toString();
    return hook.isEmpty() ? QString("allreduce") : hook;
}

// The pool a cell's buckets belong to: its layer, then its hook where that is not the default
// all-reduce ("gloo_cpu", "gloo_cpu fp16_compress").
QString bucketPoolName(const store::CellRow& c) {
    const QString hook = hookOf(c);
    return hook == "allreduce" ? c.layer : c.layer + " " + hook;
}

// The complete DDP cell a headline quotes: the largest world size (then model) of the layer, or
// of any layer when layer is empty.
const store::CellRow* largestComplete(const std::vector<store::CellRow>& cells,
                                      const QString& layer = {}) {
    const store::CellRow* best = nullptr;
    for (const auto& c : cells) {
        if (!c.complete() || c.isSweep() || !c.commOverheadFraction ||
            (!layer.isEmpty() && c.layer != layer)) {
            continue;
        }
        if (!best || c.worldSize > best->worldSize ||
            (c.worldSize == best->worldSize && c.params > best->params)) {
            best = &c;
        }
    }
    return best;
}

QString percent(double fraction) {
    return QString::number(fraction * 100.0, 'f', 1) + "\\%";
}

// The sweep fits as macros: per layer and world size, the all_reduce fit of the first complete
// sweep cell (the one the DDP cells were predicted from); a refused fit only as a comment.
void sweepMacros(const ReportData& data, MacroSheet& tex) {
    QSet<QPair<QString, int>> done;
    for (const auto& c : data.cells) {
        if (!c.isSweep() || !c.complete() || done.contains({c.layer, c.worldSize})) {
            continue;
        }
        for (const store::StoredSweep& s : data.sweepsByCell.value(c.id)) {
            if (s.series.kind != "all_reduce" || s.series.points.empty()) {
                continue;
            }
            done.insert({c.layer, c.worldSize});
            const QString what =
                QString("%1 ws%2 all_reduce (cell %3)").arg(c.layer).arg(c.worldSize).arg(c.id);
            if (s.fit.refused) {
                tex.comment(what + ": sweep fit refused: " + s.fit.reason);
                continue;
            }
            const QString n = "Ws" + numberName(c.worldSize) + "AllReduce";
            tex.comment(what + ": " + s.fit.method);
            if (c.worldSize == 1) {
                tex.comment("one rank moves no data: this is the backend's own cost, not a link");
            }
            tex.defineFor(c.layer, n + "AlphaUs", QString::number(s.fit.alphaUs, 'f', 1));
            tex.defineFor(c.layer, n + "BandwidthGBs",
                          QString::number(s.fit.asymptoticGBps(), 'f', 2));
            tex.defineFor(c.layer, n + "FitRsquared", QString::number(s.fit.r2, 'f', 3));
        }
    }
}

// The headline cell's all-reduce per step as the sweep predicted it, and how far off that was.
void predictionMacros(const ReportData& data, const store::CellRow& headline, MacroSheet& tex) {
    const auto it = data.predictionsByCell.find(headline.id);
    if (it == data.predictionsByCell.end() || !it->prediction) {
        const QString why =
            it == data.predictionsByCell.end() ? QString("not predicted") : it->note;
        tex.comment(headline.id + ": no prediction from a sweep: " + why);
        return;
    }
    const analysis::DdpPrediction& p = *it->prediction;
    tex.define("HeadlinePredictedAllReduceMs",
               QString::number(p.predictedUsPerStep / 1000.0, 'f', 2));
    tex.define("HeadlineMeasuredAllReduceMs",
               QString::number(p.measuredUsPerStep / 1000.0, 'f', 2));
    tex.define("HeadlinePredictionOffBy", percent(p.offBy()));
    tex.define("HeadlinePredictionSweepCell", texText(it->sweepCell));
}

QString capText(const std::optional<double>& cap) {
    return cap ? QString::number(*cap, 'g', 6) : QString("none");
}

void adviceMacros(const QString& label, const analysis::CapGroup& g, MacroSheet& tex) {
    const auto define = [&](const QString& suffix, const QString& value) {
        label.isEmpty() ? tex.define("Tuning" + suffix, value)
                        : tex.defineFor(label, suffix, value);
    };
    define("RecommendedCapMb", capText(g.recommendedCapMb));
    define("CurrentCapMb", capText(g.advice.currentCapMb));
    if (g.advice.savingMs && g.advice.uncertaintyMs) {
        define("SavingMs", QString::number(*g.advice.savingMs, 'f', 2));
        define("UncertaintyMs", QString::number(*g.advice.uncertaintyMs, 'f', 2));
    }
    // The action line as TeX: its "±" as TeX's own sign.
    define("Recommendation", texText(actionLine(g).replace(QString::fromUtf8("±"), "+-"))
                                 .replace("+-", "\\ensuremath{\\pm}"));
}

// The recommendation of each cap study, and how well its prediction held: per group of
// `commprof recommend`, the recommended cap ("none" where nothing is recommended), the current
// cap, the saving a step and its uncertainty, the line a reader acts on, and the MAPE; for the
// headline, the group of the default hook (allreduce) with the most measured caps, also the best
// measured cap and the measured step at the fastest cap against the best one's.
void tuningMacros(const ReportData& data, MacroSheet& tex) {
    if (!data.tuning) {
        return;
    }
    const analysis::CapGroup* headline = nullptr;
    for (const analysis::CapGroup& g : data.tuning->groups) {
        if (!g.reason.isEmpty()) {
            tex.comment(g.model + " " + g.layer + " " + g.hook + ": " + g.reason);
            continue;
        }
        const QString label =
            QString("Tuning %1 %2 ws%3 %4").arg(g.model, g.layer).arg(g.worldSize).arg(g.hook);
        adviceMacros(label, g, tex);
        if (g.mape) {
            tex.defineFor(label, "Mape", percent(*g.mape));
        }
        if ((!headline || g.measured() > headline->measured()) && g.hook == "allreduce") {
            headline = &g;
        }
    }
    if (headline) {
        adviceMacros({}, *headline, tex);
        tex.define("TuningModel", texText(headline->model));
        if (headline->mape) {
            tex.define("TuningMape", percent(*headline->mape));
        }
        const analysis::CapCandidate* best = nullptr;
        const analysis::CapCandidate* chosen = nullptr;
        for (const analysis::CapCandidate& c : headline->candidates) {
            if (c.measuredStepMs && (!best || *c.measuredStepMs < *best->measuredStepMs)) {
                best = &c;
            }
            if (c.capMb == *headline->fastestCapMb) {
                chosen = &c;
            }
        }
        if (best) {
            tex.define("TuningBestMeasuredCapMb", QString::number(best->capMb, 'g', 6));
        }
        if (best && chosen && chosen->measuredStepMs) {
            tex.define("TuningRecommendedOverBest",
                       percent(*chosen->measuredStepMs / *best->measuredStepMs - 1.0));
        }
    }
    // Per hook, the overlap tax of its first cell (by id) that has a `hook: local` twin.
    QSet<QString> hooks;
    for (const auto& c : data.cells) {
        const QString hook = c.axes.value("hook").toString();
        if (c.overlapTaxPercent && !hooks.contains(hook)) {
            hooks.insert(hook);
            tex.defineFor("OverlapTax " + hook, "Percent",
                          QString::number(*c.overlapTaxPercent, 'f', 1) + "\\%");
            tex.defineFor("OverlapTax " + hook, "Cell", texText(c.id));
        }
    }
}

} // namespace

bool bucketsCommunicated(const store::CellRow& c) {
    return c.complete() && !c.isSweep() && c.worldSize > 1 &&
           !spec::sendsNothing(hookOf(c).toStdString());
}

ReportData loadReportData(store::Database& db, const QString& runDir) {
    ReportData d;
    d.cells = store::cells(db, runDir);
    QMap<QString, std::vector<analysis::BucketSample>> oneRank; // by pool: the latency floor
    for (const auto& c : d.cells) {
        if (!c.complete()) {
            continue;
        }
        if (c.isSweep()) {
            d.sweepsByCell[c.id] = store::sweeps(db, c.key);
            continue;
        }
        auto& own = d.bucketsByCell[c.id];
        d.ranksByCell[c.id] = store::rankFigures(db, c.key);
        for (const auto& b : store::buckets(db, c.key)) {
            if (b.endNs > b.startNs) {
                own.push_back({c.worldSize, double(b.bytes), b.seconds()});
            }
        }
        if (bucketsCommunicated(c)) {
            BucketPool& pool = d.bucketPools[bucketPoolName(c)];
            pool.layer = c.layer;
            pool.hook = hookOf(c);
            pool.samples.insert(pool.samples.end(), own.begin(), own.end());
        } else if (c.worldSize == 1 && !spec::sendsNothing(hookOf(c).toStdString())) {
            auto& floor = oneRank[bucketPoolName(c)];
            floor.insert(floor.end(), own.begin(), own.end());
        }
    }
    for (auto it = d.bucketPools.begin(); it != d.bucketPools.end(); ++it) {
        // fitAlphaBeta takes a world-size-1 sample for the floor only, never for the line.
        std::vector<analysis::BucketSample> all = it->samples;
        const auto& floor = oneRank.value(it.key());
        all.insert(all.end(), floor.begin(), floor.end());
        it->fit = analysis::fitAlphaBeta(all);
    }
    d.predictionsByCell = predictionsOf(db, d.cells);
    QSet<QString> caps;
    for (const auto& c : d.cells) {
        if (c.complete() && !c.isSweep()) {
            caps.insert(c.axes.value("bucket_cap_mb").toString());
        }
    }
    if (caps.size() > 1) {
        // Against the cap the matrix ran at, where it names one value (cap_advice.h).
        d.tuning = analysis::recommend(
            store::studyCells(db, d.cells),
            {std::nullopt, inputs::matrixScalarCapMb(results::matrixOfRun(runDir).yaml)});
    }
    return d;
}

QJsonObject fitsJson(const ReportData& data) {
    QJsonObject out;
    for (auto it = data.bucketPools.begin(); it != data.bucketPools.end(); ++it) {
        QJsonObject layer{
            {"layer", it->layer}, {"hook", it->hook}, {"samples", int(it->samples.size())}};
        if (it->fit) {
            layer["alpha_s"] = it->fit->alpha;
            layer["beta_s_per_byte"] = it->fit->beta;
            layer["bandwidth_bytes_per_s"] =
                it->fit->beta > 0 ? QJsonValue(1.0 / it->fit->beta) : QJsonValue();
            layer["r2"] = it->fit->r2;
            layer["residuals_s"] = results::jsonArray(it->fit->residuals);
            layer["latency_floor_s"] =
                it->fit->latencyFloor ? QJsonValue(*it->fit->latencyFloor) : QJsonValue();
        } else {
            layer["fit"] = "not enough complete cells with more than one rank";
        }
        out[it.key()] = layer;
    }
    return out;
}

QString bucketsCsv(store::Database& db, const ReportData& data) {
    QString out = "cell,layer,world_size,rank,iter,index,bytes,seconds,algbw_bytes_per_s,"
                  "busbw_bytes_per_s,hook\n";
    for (const auto& c : data.cells) {
        if (!bucketsCommunicated(c)) {
            continue; // one rank, or a hook that sends nothing: no time of a link to quote
        }
        for (const auto& b : store::buckets(db, c.key)) {
            out += QString("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11\n")
                       .arg(csvField(c.id), csvField(c.layer))
                       .arg(c.worldSize)
                       .arg(b.rank)
                       .arg(b.iter)
                       .arg(b.index)
                       .arg(b.bytes)
                       .arg(b.seconds(), 0, 'g', 9)
                       .arg(analysis::algorithmicBandwidth(double(b.bytes), b.seconds()), 0, 'g', 6)
                       .arg(analysis::busBandwidth(double(b.bytes), b.seconds(), c.worldSize), 0,
                            'g', 6)
                       .arg(csvField(hookOf(c)));
        }
    }
    return out;
}

QMap<QString, QString> cellNotes(const ReportData& data) {
    QMap<QString, QString> out;
    for (const auto& c : data.cells) {
        const auto it = data.sweepsByCell.constFind(c.id);
        if (it == data.sweepsByCell.constEnd()) {
            continue;
        }
        QStringList kinds;
        QString allReduce;
        for (const store::StoredSweep& s : *it) {
            kinds << s.series.kind;
            if (s.series.kind != "all_reduce" || s.series.points.empty()) {
                continue;
            }
            // One rank's busbw is 0 (it moves nothing): its algbw is the figure there is.
            const bool bus = c.worldSize > 1;
            const auto bw = [bus](const analysis::SweepPoint& p) {
                return bus ? p.busbwGBps.value_or(0.0) : p.algbwGBps;
            };
            const auto peak =
                std::max_element(s.series.points.begin(), s.series.points.end(),
                                 [&](const auto& a, const auto& b) { return bw(a) < bw(b); });
            allReduce =
                QString("; all_reduce peak %1 %2 GB/s at %3")
                    .arg(bus ? "busbw" : "algbw")
                    .arg(bw(*peak), 0, 'g', 3)
                    .arg(QString::fromStdString(trace::formatByteSize(std::uint64_t(peak->bytes))));
            allReduce += s.fit.refused ? QString(", fit refused: %1").arg(s.fit.reason)
                                       : QString(", fit %1 us + bytes / %2 GB/s (R\u00b2 %3)")
                                             .arg(s.fit.alphaUs, 0, 'f', 1)
                                             .arg(s.fit.asymptoticGBps(), 0, 'f', 2)
                                             .arg(s.fit.r2, 0, 'f', 3);
        }
        out[c.id] = "sweep of " + kinds.join(", ") + allReduce;
    }
    for (auto it = data.predictionsByCell.begin(); it != data.predictionsByCell.end(); ++it) {
        if (!it->prediction) {
            out[it.key()] = it->note;
            continue;
        }
        const analysis::DdpPrediction& p = *it->prediction;
        out[it.key()] = QString("all-reduce per step: %1 ms predicted by %2, %3 ms measured "
                                "(off by %4 %)")
                            .arg(p.predictedUsPerStep / 1000.0, 0, 'f', 2)
                            .arg(it->sweepCell)
                            .arg(p.measuredUsPerStep / 1000.0, 0, 'f', 2)
                            .arg(p.offBy() * 100.0, 0, 'f', 1);
    }
    return out;
}

QString sweepCsv(const ReportData& data) {
    QString out = "cell,layer,world_size,kind,bytes,time_us,typical_us,algbw_GBps,busbw_GBps\n";
    const auto num = [](double v) { return QString::number(v, 'g', 9); };
    for (const auto& c : data.cells) {
        for (const store::StoredSweep& s : data.sweepsByCell.value(c.id)) {
            for (const analysis::SweepPoint& p : s.series.points) {
                QStringList row{csvField(c.id),
                                csvField(c.layer),
                                QString::number(c.worldSize),
                                csvField(s.series.kind),
                                QString::number(p.bytes, 'f', 0),
                                num(p.slowestUs),
                                num(p.typicalUs),
                                num(p.algbwGBps),
                                p.busbwGBps ? num(*p.busbwGBps) : QString()}; // empty, never NaN
                out += row.join(',') + "\n";
            }
        }
    }
    return out;
}

QString macrosTex(const ReportData& data) {
    int complete = 0, ddp = 0, sweepsComplete = 0, sweeps = 0;
    for (const auto& c : data.cells) {
        (c.isSweep() ? sweeps : ddp) += 1;
        (c.isSweep() ? sweepsComplete : complete) += c.complete();
    }
    MacroSheet tex;
    tex.comment("Generated by commprof report from complete cells only; do not edit.");
    tex.comment("Layers and world sizes in names are spelled in letters: gloo_cpu at 16 ranks is "
                "GlooCpuWsOneSix.");
    tex.define("CompleteCells", QString::number(complete));
    tex.define("NotCompleteCells", QString::number(ddp - complete));
    tex.define("CompleteSweepCells", QString::number(sweepsComplete));
    tex.define("NotCompleteSweepCells", QString::number(sweeps - sweepsComplete));
    // The headline: the largest complete cell of the headline layer, else of any layer.
    const spec::Layer* preferred = spec::headlineLayer();
    const store::CellRow* headline =
        preferred ? largestComplete(data.cells, matrix::qName(preferred->name)) : nullptr;
    if (!headline) {
        headline = largestComplete(data.cells);
    }
    if (headline) {
        tex.define("HeadlineCommOverhead", percent(*headline->commOverheadFraction));
        tex.define("HeadlineWorldSize", QString::number(headline->worldSize));
        tex.define("HeadlineLayer", texText(headline->layer));
        tex.define("HeadlineModel", texText(headline->model));
        if (headline->stepMs) {
            tex.define("HeadlineStepMs", QString::number(*headline->stepMs, 'f', 1));
        }
        predictionMacros(data, *headline, tex);
    }
    QStringList layers;
    for (const auto& c : data.cells) {
        if (!c.isSweep() && !layers.contains(c.layer)) {
            layers << c.layer;
        }
    }
    for (const QString& layer : layers) {
        if (const store::CellRow* c = largestComplete(data.cells, layer)) {
            tex.defineFor(layer, "CommOverhead", percent(*c->commOverheadFraction));
            tex.defineFor(layer, "WorldSize", QString::number(c->worldSize));
            if (c->overlapEfficiency) {
                tex.defineFor(layer, "OverlapEfficiency", percent(*c->overlapEfficiency));
            }
            if (c->hookTraceAgreement) {
                tex.defineFor(layer, "HookTraceAgreement",
                              QString::number(*c->hookTraceAgreement, 'f', 3));
            }
        }
        const auto fit = data.bucketPools.value(layer).fit; // the layer's all-reduce buckets
        if (fit && !fit->describesSamples()) {
            tex.comment(QString("%1: bucket fit refused (R^2 = %2, beta %3 s/B)")
                            .arg(layer)
                            .arg(fit->r2, 0, 'f', 3)
                            .arg(fit->beta, 0, 'g', 3));
        } else if (fit) {
            tex.defineFor(layer, "AlphaUs", QString::number(fit->alpha * 1e6, 'f', 1));
            tex.defineFor(layer, "BandwidthGBs", QString::number(1.0 / fit->beta / 1e9, 'f', 2));
            tex.defineFor(layer, "FitRsquared", QString::number(fit->r2, 'f', 3));
        }
    }
    sweepMacros(data, tex);
    tuningMacros(data, tex);
    return tex.tex();
}

QString recommendCsv(const analysis::Recommendations& r) {
    QString out = "model,layer,world_size,hook,cap_mb,buckets,predicted_step_ms,"
                  "predicted_exposed_comm_ms,held_out_step_ms,measured_step_ms,measured_cell,"
                  "error,recommended,reason\n";
    const auto num = [](const std::optional<double>& v, int digits) {
        return v ? QString::number(*v, 'f', digits) : QString();
    };
    for (const analysis::CapGroup& g : r.groups) {
        const QString shape = QStringList{csvField(g.model), csvField(g.layer),
                                          QString::number(g.worldSize), csvField(g.hook)}
                                  .join(',');
        if (g.candidates.empty()) {
            out += shape + ",,,,,,,,,," + csvField(g.reason) + "\n";
            continue;
        }
        for (const analysis::CapCandidate& c : g.candidates) {
            out += QStringList{shape,
                               QString::number(c.capMb, 'g', 6),
                               QString::number(c.buckets),
                               QString::number(c.predictedStepMs, 'f', 3),
                               QString::number(c.predictedExposedMs, 'f', 3),
                               num(c.heldOutStepMs, 3),
                               num(c.measuredStepMs, 3),
                               csvField(c.measuredCell),
                               num(c.error(), 4),
                               g.recommendedCapMb == c.capMb ? "1" : "0",
                               QString()}
                       .join(',') +
                   "\n";
        }
    }
    return out;
}

} // namespace commprof::report
