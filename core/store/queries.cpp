#include "queries.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace commprof::store {
namespace {

QJsonValue json(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

} // namespace

std::vector<CellRow> cells(Database& db, const QString& runDir) {
    Statement s =
        db.prepare("SELECT key, id, status, reasons, world_size, layer, interconnect, "
                   "model, family, params, backend, device, "
                   "feasible, binding, step_ms, hook_comm_ms, trace_comm_ms, "
                   "hook_trace_agreement, agreement_flagged, "
                   "overlap_efficiency, comm_overhead_fraction, exposed_comm_ms, "
                   "compute_ms, bookkeeping_ms, peak_host_bytes, "
                   "peak_device_bytes, host_demand_bytes, device_demand_bytes, hook_total_ms, "
                   "backend_total_ms, agreement_steps, agreement_reason, backend_source, "
                   "buckets_compared, buckets_matched, slowest_rank, median_skew_ms, kind "
                   "FROM cells "
                   "WHERE (?1 IS NULL OR run_dir = ?1) ORDER BY run_dir, id");
    s.bind(runDir.isEmpty() ? QVariant() : QVariant(runDir));
    std::vector<CellRow> out;
    while (s.step()) {
        CellRow c;
        int i = 0;
        c.key = s.column(i++).toString();
        c.id = s.column(i++).toString();
        c.status = s.column(i++).toString();
        for (const QJsonValue r :
             QJsonDocument::fromJson(s.column(i++).toString().toUtf8()).array()) {
            c.reasons << r.toString();
        }
        c.worldSize = s.column(i++).toInt();
        c.layer = s.column(i++).toString();
        c.interconnect = s.column(i++).toString();
        c.model = s.column(i++).toString();
        c.family = s.column(i++).toString();
        c.params = s.column(i++).toDouble();
        c.backend = s.column(i++).toString();
        c.device = s.column(i++).toString();
        const QVariant feasible = s.column(i++);
        c.feasible = feasible.isNull() ? std::nullopt : std::optional<bool>(feasible.toBool());
        c.binding = s.column(i++).toString();
        c.stepMs = optionalDouble(s.column(i++));
        c.hookCommMs = optionalDouble(s.column(i++));
        c.traceCommMs = optionalDouble(s.column(i++));
        c.hookTraceAgreement = optionalDouble(s.column(i++));
        c.agreementFlagged = s.column(i++).toBool();
        c.overlapEfficiency = optionalDouble(s.column(i++));
        c.commOverheadFraction = optionalDouble(s.column(i++));
        c.exposedCommMs = optionalDouble(s.column(i++));
        c.computeMs = optionalDouble(s.column(i++));
        c.bookkeepingMs = optionalDouble(s.column(i++));
        c.peakHostBytes = s.column(i++).toDouble();
        c.peakDeviceBytes = s.column(i++).toDouble();
        c.hostDemandBytes = optionalDouble(s.column(i++));
        c.deviceDemandBytes = optionalDouble(s.column(i++));
        c.hookTotalMs = optionalDouble(s.column(i++));
        c.backendTotalMs = optionalDouble(s.column(i++));
        c.agreementSteps = s.column(i++).toInt();
        c.agreementReason = s.column(i++).toString();
        c.backendSource = s.column(i++).toString();
        c.bucketsCompared = s.column(i++).toInt();
        c.bucketsMatched = s.column(i++).toInt();
        const QVariant slowest = s.column(i++);
        c.slowestRank = slowest.isNull() ? std::nullopt : std::optional<int>(slowest.toInt());
        c.medianSkewMs = optionalDouble(s.column(i++));
        c.kind = s.column(i++).toString();
        out.push_back(c);
    }
    return out;
}

std::vector<BucketRow> buckets(Database& db, const QString& cellKey) {
    Statement s = db.prepare(
        "SELECT rank, iter, idx, bytes, nparams, start_ns, end_ns FROM buckets WHERE cell_key = ? "
        "ORDER BY rank, iter, idx");
    s.bind(cellKey);
    std::vector<BucketRow> out;
    while (s.step()) {
        out.push_back({s.column(0).toInt(), s.column(1).toInt(), s.column(2).toInt(),
                       s.column(3).toLongLong(), s.column(4).toLongLong(), s.column(5).toLongLong(),
                       s.column(6).toLongLong()});
    }
    return out;
}

std::vector<trace::StepMetrics> steps(Database& db, const QString& cellKey) {
    Statement s = db.prepare(
        "SELECT step, start_us, end_us, step_us, compute_us, comm_us, bookkeeping_us, overlap_us, "
        "exposed_comm_us, overlap_efficiency, comm_overhead_fraction FROM trace_steps "
        "WHERE cell_key = ? AND rank = 0 ORDER BY step");
    s.bind(cellKey);
    std::vector<trace::StepMetrics> out;
    while (s.step()) {
        trace::StepMetrics m;
        m.step = s.column(0).toInt();
        m.startUs = s.column(1).toDouble();
        m.endUs = s.column(2).toDouble();
        m.stepUs = s.column(3).toDouble();
        m.computeUs = s.column(4).toDouble();
        m.commUs = s.column(5).toDouble();
        m.bookkeepingUs = s.column(6).toDouble();
        m.overlapUs = s.column(7).toDouble();
        m.exposedCommUs = s.column(8).toDouble();
        m.overlapEfficiency = optionalDouble(s.column(9));
        m.commOverheadFraction = optionalDouble(s.column(10));
        out.push_back(m);
    }
    return out;
}

std::vector<RankFiguresRow> rankFigures(Database& db, const QString& cellKey) {
    Statement s = db.prepare("SELECT rank, step_ms, comm_ms, exposed_comm_ms, hook_ms, backend_ms, "
                             "agreement, agreement_flagged, agreement_reason, trace_error "
                             "FROM rank_figures WHERE cell_key = ? ORDER BY rank");
    s.bind(cellKey);
    std::vector<RankFiguresRow> out;
    while (s.step()) {
        RankFiguresRow r;
        int i = 0;
        r.rank = s.column(i++).toInt();
        r.stepMs = optionalDouble(s.column(i++));
        r.commMs = optionalDouble(s.column(i++));
        r.exposedCommMs = optionalDouble(s.column(i++));
        r.hookMs = optionalDouble(s.column(i++));
        r.backendMs = optionalDouble(s.column(i++));
        r.agreement = optionalDouble(s.column(i++));
        r.agreementFlagged = s.column(i++).toBool();
        r.agreementReason = s.column(i++).toString();
        r.traceError = s.column(i++).toString();
        out.push_back(r);
    }
    return out;
}

QJsonObject toJson(const CellRow& c) {
    return QJsonObject{
        {"id", c.id},
        {"kind", c.kind},
        {"status", c.status},
        {"reasons", QJsonArray::fromStringList(c.reasons)},
        {"world_size", c.worldSize},
        {"layer", c.layer},
        {"interconnect", c.interconnect},
        {"model", c.model},
        {"params", c.params},
        {"step_ms", json(c.stepMs)},
        {"comm_ms", json(c.traceCommMs ? c.traceCommMs : c.hookCommMs)},
        {"hook_comm_ms", json(c.hookCommMs)},
        {"trace_comm_ms", json(c.traceCommMs)},
        {"overlap_efficiency", json(c.overlapEfficiency)},
        {"comm_overhead_fraction", json(c.commOverheadFraction)},
        {"exposed_comm_ms", json(c.exposedCommMs)},
        {"hook_trace_agreement", json(c.hookTraceAgreement)},
        {"agreement_flagged", c.agreementFlagged},
        {"agreement_reason", c.agreementReason},
        {"hook_total_ms", json(c.hookTotalMs)},
        {"backend_total_ms", json(c.backendTotalMs)},
        {"backend_source", c.backendSource},
        {"buckets_compared", c.bucketsCompared},
        {"buckets_matched", c.bucketsMatched},
        {"slowest_rank", c.slowestRank ? QJsonValue(*c.slowestRank) : QJsonValue(QJsonValue::Null)},
        {"median_skew_ms", json(c.medianSkewMs)},
        {"peak_host_bytes", c.peakHostBytes},
        {"peak_device_bytes", c.peakDeviceBytes},
        {"host_demand_bytes", json(c.hostDemandBytes)},
        {"device_demand_bytes", json(c.deviceDemandBytes)}};
}

} // namespace commprof::store
