// SPDX-License-Identifier: GPL-3.0-or-later
#include "report_data.h"

#include "matrix/spec_names.h"
#include "report/cells_table.h"
#include "report/text_fields.h"
#include "trace/trace_input.h"

#include <QJsonArray>
#include <QSet>
#include <QStringList>

namespace commprof::report {
namespace {

// gloo_cuda -> GlooCuda: LaTeX command names take letters only.
QString macroName(const QString& text) {
    QString out;
    bool upper = true;
    for (const QChar ch : text) {
        if (ch.isLetter()) {
            out += upper ? ch.toUpper() : ch;
            upper = false;
        } else {
            upper = true;
        }
    }
    return out;
}

QString cmd(const QString& name, const QString& value) {
    return QString("\\newcommand{\\commprof%1}{%2}\n").arg(name, value);
}

QString percent(double fraction) {
    return QString::number(fraction * 100.0, 'f', 1) + "\\%";
}

// 16 -> OneSix: a world size in a command name, which takes letters only.
QString numberName(int n) {
    static const char* const kDigits[] = {"Zero", "One", "Two",   "Three", "Four",
                                          "Five", "Six", "Seven", "Eight", "Nine"};
    QString out;
    for (const QChar d : QString::number(n)) {
        out += kDigits[d.digitValue()];
    }
    return out;
}

// A TeX comment stays one line whatever the text holds.
QString commentText(const QString& text) {
    return QString(text).replace('\n', ' ').replace('\r', ' ');
}

// The sweep fits as macros: per layer and world size, the all_reduce fit of the first complete
// sweep cell (the one the DDP cells were predicted from); a refused fit only as a comment.
QString sweepMacros(const ReportData& data) {
    QString tex;
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
                tex += "% " + commentText(what + ": sweep fit refused: " + s.fit.reason) + "\n";
                continue;
            }
            const QString n = macroName(c.layer) + "Ws" + numberName(c.worldSize) + "AllReduce";
            tex += "% " + commentText(what + ": " + s.fit.method) + "\n";
            if (c.worldSize == 1) {
                tex += "% one rank moves no data: this is the backend's own cost, not a link\n";
            }
            tex += cmd(n + "AlphaUs", QString::number(s.fit.alphaUs, 'f', 1));
            tex += cmd(n + "BandwidthGBs", QString::number(s.fit.asymptoticGBps(), 'f', 2));
            tex += cmd(n + "FitRsquared", QString::number(s.fit.r2, 'f', 3));
        }
    }
    return tex;
}

// The headline cell's all-reduce per step as the sweep predicted it, and how far off that was.
QString predictionMacros(const ReportData& data, const store::CellRow& headline) {
    const auto it = data.predictionsByCell.find(headline.id);
    if (it == data.predictionsByCell.end() || !it->prediction) {
        const QString why =
            it == data.predictionsByCell.end() ? QString("not predicted") : it->note;
        return "% " + commentText(headline.id + ": no prediction from a sweep: " + why) + "\n";
    }
    const analysis::DdpPrediction& p = *it->prediction;
    QString tex;
    tex +=
        cmd("HeadlinePredictedAllReduceMs", QString::number(p.predictedUsPerStep / 1000.0, 'f', 2));
    tex +=
        cmd("HeadlineMeasuredAllReduceMs", QString::number(p.measuredUsPerStep / 1000.0, 'f', 2));
    tex += cmd("HeadlinePredictionOffBy", percent(p.offBy()));
    tex += cmd("HeadlinePredictionSweepCell", texText(it->sweepCell));
    return tex;
}

// The recommendation of each cap study, and how well its prediction held: per group of
// `commprof recommend`, the recommended cap, the best measured cap, the measured step at the
// recommended cap against the best one's, and the MAPE; the headline is the group of the
// default hook (allreduce) with the most measured caps.
QString tuningMacros(const ReportData& data) {
    if (!data.tuning) {
        return {};
    }
    QString tex;
    const analysis::CapGroup* headline = nullptr;
    for (const analysis::CapGroup& g : data.tuning->groups) {
        if (!g.recommendedCapMb) {
            tex +=
                "% " + commentText(g.model + " " + g.layer + " " + g.hook + ": " + g.reason) + "\n";
            continue;
        }
        const QString n = "Tuning" + macroName(g.model) + macroName(g.layer) + "Ws" +
                          numberName(g.worldSize) + macroName(g.hook);
        tex += cmd(n + "RecommendedCapMb", QString::number(*g.recommendedCapMb, 'g', 6));
        if (g.mape) {
            tex += cmd(n + "Mape", percent(*g.mape));
        }
        if ((!headline || g.measured() > headline->measured()) && g.hook == "allreduce") {
            headline = &g;
        }
    }
    if (headline) {
        tex += cmd("TuningRecommendedCapMb", QString::number(*headline->recommendedCapMb, 'g', 6));
        tex += cmd("TuningModel", texText(headline->model));
        if (headline->mape) {
            tex += cmd("TuningMape", percent(*headline->mape));
        }
        const analysis::CapCandidate* best = nullptr;
        const analysis::CapCandidate* chosen = nullptr;
        for (const analysis::CapCandidate& c : headline->candidates) {
            if (c.measuredStepMs && (!best || *c.measuredStepMs < *best->measuredStepMs)) {
                best = &c;
            }
            if (c.capMb == *headline->recommendedCapMb) {
                chosen = &c;
            }
        }
        if (best) {
            tex += cmd("TuningBestMeasuredCapMb", QString::number(best->capMb, 'g', 6));
        }
        if (best && chosen && chosen->measuredStepMs) {
            tex += cmd("TuningRecommendedOverBest",
                       percent(*chosen->measuredStepMs / *best->measuredStepMs - 1.0));
        }
    }
    // Per hook, the overlap tax of its first cell (by id) that has a `hook: local` twin.
    QSet<QString> hooks;
    for (const auto& c : data.cells) {
        if (c.overlapTaxPercent && !hooks.contains(c.axes.value("hook").toString())) {
            const QString hook = c.axes.value("hook").toString();
            hooks.insert(hook);
            tex += cmd("OverlapTax" + macroName(hook) + "Percent",
                       QString::number(*c.overlapTaxPercent, 'f', 1) + "\\%");
            tex += cmd("OverlapTax" + macroName(hook) + "Cell", texText(c.id));
        }
    }
    return tex;
}

} // namespace

ReportData loadReportData(store::Database& db, const QString& runDir) {
    ReportData d;
    d.cells = store::cells(db, runDir);
    for (const auto& c : d.cells) {
        if (!c.complete()) {
            continue;
        }
        if (c.isSweep()) {
            d.sweepsByCell[c.id] = store::sweeps(db, c.key);
            continue;
        }
        LayerSamples& layer = d.byLayer[c.layer];
        auto& own = d.bucketsByCell[c.id];
        d.ranksByCell[c.id] = store::rankFigures(db, c.key);
        for (const auto& b : store::buckets(db, c.key)) {
            if (b.endNs > b.startNs) {
                layer.samples.push_back({c.worldSize, double(b.bytes), b.seconds()});
                own.push_back(layer.samples.back());
            }
        }
    }
    for (auto it = d.byLayer.begin(); it != d.byLayer.end(); ++it) {
        it->fit = analysis::fitAlphaBeta(it->samples);
    }
    d.predictionsByCell = predictionsOf(db, d.cells);
    QSet<QString> caps;
    for (const auto& c : d.cells) {
        if (c.complete() && !c.isSweep()) {
            caps.insert(c.axes.value("bucket_cap_mb").toString());
        }
    }
    if (caps.size() > 1) {
        d.tuning = analysis::recommend(runDir);
    }
    return d;
}

QJsonObject fitsJson(const ReportData& data) {
    QJsonObject out;
    for (auto it = data.byLayer.begin(); it != data.byLayer.end(); ++it) {
        QJsonObject layer{{"samples", int(it->samples.size())}};
        if (it->fit) {
            QJsonArray residuals;
            for (double r : it->fit->residuals) {
                residuals.append(r);
            }
            layer["alpha_s"] = it->fit->alpha;
            layer["beta_s_per_byte"] = it->fit->beta;
            layer["bandwidth_bytes_per_s"] =
                it->fit->beta > 0 ? QJsonValue(1.0 / it->fit->beta) : QJsonValue();
            layer["r2"] = it->fit->r2;
            layer["residuals_s"] = residuals;
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
    QString out =
        "cell,layer,world_size,rank,iter,index,bytes,seconds,algbw_bytes_per_s,busbw_bytes_per_s\n";
    for (const auto& c : data.cells) {
        if (!c.complete() || c.isSweep()) {
            continue;
        }
        for (const auto& b : store::buckets(db, c.key)) {
            out += QString("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10\n")
                       .arg(csvField(c.id), csvField(c.layer))
                       .arg(c.worldSize)
                       .arg(b.rank)
                       .arg(b.iter)
                       .arg(b.index)
                       .arg(b.bytes)
                       .arg(b.seconds(), 0, 'g', 9)
                       .arg(analysis::algorithmicBandwidth(double(b.bytes), b.seconds()), 0, 'g', 6)
                       .arg(analysis::busBandwidth(double(b.bytes), b.seconds(), c.worldSize), 0,
                            'g', 6);
        }
    }
    return out;
}

const store::CellRow* largestComplete(const std::vector<store::CellRow>& cells,
                                      const QString& layer) {
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
    QString tex = "% Generated by commprof report from complete cells only; do not edit.\n";
    tex += "% Layers and world sizes in names are spelled in letters: gloo_cpu at 16 ranks is "
           "GlooCpuWsOneSix.\n";
    tex += cmd("CompleteCells", QString::number(complete));
    tex += cmd("NotCompleteCells", QString::number(ddp - complete));
    tex += cmd("CompleteSweepCells", QString::number(sweepsComplete));
    tex += cmd("NotCompleteSweepCells", QString::number(sweeps - sweepsComplete));
    // The headline: the largest complete cell of the headline layer, else of any layer.
    const spec::Layer* preferred = spec::headlineLayer();
    const store::CellRow* headline =
        preferred ? largestComplete(data.cells, matrix::qName(preferred->name)) : nullptr;
    if (!headline) {
        headline = largestComplete(data.cells);
    }
    if (headline) {
        tex += cmd("HeadlineCommOverhead", percent(*headline->commOverheadFraction));
        tex += cmd("HeadlineWorldSize", QString::number(headline->worldSize));
        tex += cmd("HeadlineLayer", texText(headline->layer));
        tex += cmd("HeadlineModel", texText(headline->model));
        tex += cmd("HeadlineStepMs", QString::number(*headline->stepMs, 'f', 1));
        tex += predictionMacros(data, *headline);
    }
    QStringList layers;
    for (const auto& c : data.cells) {
        if (!c.isSweep() && !layers.contains(c.layer)) {
            layers << c.layer;
        }
    }
    for (const QString& layer : layers) {
        const QString n = macroName(layer);
        if (const store::CellRow* c = largestComplete(data.cells, layer)) {
            tex += cmd(n + "CommOverhead", percent(*c->commOverheadFraction));
            tex += cmd(n + "WorldSize", QString::number(c->worldSize));
            if (c->overlapEfficiency) {
                tex += cmd(n + "OverlapEfficiency", percent(*c->overlapEfficiency));
            }
            if (c->hookTraceAgreement) {
                tex +=
                    cmd(n + "HookTraceAgreement", QString::number(*c->hookTraceAgreement, 'f', 3));
            }
        }
        const auto fit = data.byLayer.value(layer).fit;
        if (fit && !fit->describesSamples()) {
            tex += QString("% %1: bucket fit refused (R^2 = %2, beta %3 s/B)\n")
                       .arg(layer)
                       .arg(fit->r2, 0, 'f', 3)
                       .arg(fit->beta, 0, 'g', 3);
        } else if (fit) {
            tex += cmd(n + "AlphaUs", QString::number(fit->alpha * 1e6, 'f', 1));
            tex += cmd(n + "BandwidthGBs", QString::number(1.0 / fit->beta / 1e9, 'f', 2));
            tex += cmd(n + "FitRsquared", QString::number(fit->r2, 'f', 3));
        }
    }
    return tex + sweepMacros(data) + tuningMacros(data);
}

QString recommendCsv(const analysis::Recommendations& r) {
    QString out = "model,layer,world_size,hook,cap_mb,buckets,predicted_step_ms,"
                  "predicted_exposed_comm_ms,measured_step_ms,measured_cell,error,recommended,"
                  "reason\n";
    const auto num = [](const std::optional<double>& v, int digits) {
        return v ? QString::number(*v, 'f', digits) : QString();
    };
    for (const analysis::CapGroup& g : r.groups) {
        const QString shape = QStringList{csvField(g.model), csvField(g.layer),
                                          QString::number(g.worldSize), csvField(g.hook)}
                                  .join(',');
        if (g.candidates.empty()) {
            out += shape + ",,,,,,,,," + csvField(g.reason) + "\n";
            continue;
        }
        for (const analysis::CapCandidate& c : g.candidates) {
            out += QStringList{shape,
                               QString::number(c.capMb, 'g', 6),
                               QString::number(c.buckets),
                               QString::number(c.predictedStepMs, 'f', 3),
                               QString::number(c.predictedExposedMs, 'f', 3),
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
