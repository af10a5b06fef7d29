#include "cells_table.h"

#include "report/text_fields.h"

#include <QStringList>

namespace commprof::report {
namespace {

QString num(const std::optional<double>& v, int precision = 6) {
    return v ? QString::number(*v, 'g', precision) : QString(); // empty, never NaN
}

} // namespace

QString cellsCsv(const std::vector<store::CellRow>& cells) {
    QString out = "id,status,reasons,model,params,layer,interconnect,world_size,step_ms,hook_comm_"
                  "ms,trace_comm_ms,"
                  "hook_trace_agreement,agreement_flagged,overlap_efficiency,comm_overhead_"
                  "fraction,exposed_comm_ms,"
                  "peak_host_bytes,peak_device_bytes,host_demand_bytes,device_demand_bytes\n";
    for (const auto& c : cells) {
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
                        num(c.deviceDemandBytes, 12)};
        out += row.join(',') + "\n";
    }
    return out;
}

} // namespace commprof::report
