#include "cells_table.h"

#include "report/text_fields.h"

#include <QStringList>

namespace commprof::report {
namespace {

QString num(const std::optional<double>& v, int precision = 6) {
    return v ? QString::number(*v, 'g', precision) : QString(); // empty, never NaN
}

} // namespace

Predictions predictionsOf(store::Database& db, const std::vector<store::CellRow>& cells) {
    Predictions out;
    for (const auto& c : cells) {
        if (c.complete() && !c.isSweep()) {
            if (auto p = store::prediction(db, c.key)) {
                out[c.id] = *p;
            }
        }
    }
    return out;
}

QString cellsCsv(const std::vector<store::CellRow>& cells, const Predictions& predictions) {
    QString out = "id,status,reasons,model,params,layer,interconnect,world_size,step_ms,hook_comm_"
                  "ms,trace_comm_ms,"
                  "hook_trace_agreement,agreement_flagged,overlap_efficiency,comm_overhead_"
                  "fraction,exposed_comm_ms,"
                  "peak_host_bytes,peak_device_bytes,host_demand_bytes,device_demand_bytes,kind,"
                  "predicted_allreduce_ms,measured_allreduce_ms,prediction_off_by\n";
    for (const auto& c : cells) {
        std::optional<analysis::DdpPrediction> p;
        if (const auto it = predictions.find(c.id); it != predictions.end()) {
            p = it->prediction;
        }
        const auto ms = [&](double us) {
            return p ? std::optional<double>(us / 1000.0) : std::nullopt;
        };
        QStringList row{csvField(c.id),
                        csvField(c.status),
                        csvField(c.reasons.join("; ")),
                        csvField(c.model),
                        QString::number(c.params, 'g', 6),
                        csvField(c.layer),
                        csvField(c.interconnect),
                        QString::number(c.worldSize),
                        num(c.stepMs),
                        num(c.hookCommMs),
                        num(c.traceCommMs),
                        num(c.hookTraceAgreement),
                        c.agreementFlagged ? "1" : "0",
                        num(c.overlapEfficiency),
                        num(c.commOverheadFraction),
                        num(c.exposedCommMs),
                        QString::number(c.peakHostBytes, 'f', 0),
                        QString::number(c.peakDeviceBytes, 'f', 0),
                        num(c.hostDemandBytes, 12),
                        num(c.deviceDemandBytes, 12),
                        csvField(c.kind),
                        num(ms(p ? p->predictedUsPerStep : 0)),
                        num(ms(p ? p->measuredUsPerStep : 0)),
                        num(p ? std::optional<double>(p->offBy()) : std::nullopt)};
        out += row.join(',') + "\n";
    }
    return out;
}

} // namespace commprof::report
