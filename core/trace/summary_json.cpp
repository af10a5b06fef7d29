#include "summary_json.h"

#include <QJsonArray>

namespace commprof::trace {
namespace {

QJsonValue orNull(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

} // namespace

QJsonObject toJson(const StepMetrics& m) {
    return QJsonObject{
        {"step", m.step},
        {"start_us", m.startUs},
        {"end_us", m.endUs},
        {"step_us", m.stepUs},
        {"compute_us", m.computeUs},
        {"comm_us", m.commUs},
        {"bookkeeping_us", m.bookkeepingUs},
        {"overlap_us", m.overlapUs},
        {"exposed_comm_us", m.exposedCommUs},
        {"overlap_efficiency", orNull(m.overlapEfficiency)},
        {"comm_overhead_fraction", orNull(m.commOverheadFraction)},
    };
}

QJsonObject toJson(const TraceSummary& s) {
    QJsonArray steps;
    for (const auto& m : s.steps) {
        steps.append(toJson(m));
    }
    QJsonObject totals = toJson(s.totals);
    totals.remove("step");
    QJsonArray warnings;
    for (const auto& w : s.warnings) {
        warnings.append(QString::fromStdString(w));
    }
    return QJsonObject{
        {"regime", toString(s.regime)},
        {"steps_marked", s.stepsMarked},
        {"steps", steps},
        {"totals", totals},
        {"warnings", warnings},
    };
}

QJsonObject toJson(const HtaFigures& h) {
    return QJsonObject{
        {"comp_comm_overlap_pctg", orNull(h.compCommOverlapPctg)},
        {"idle_time_us", h.idleTimeUs},
        {"compute_time_us", h.computeTimeUs},
        {"non_compute_time_us", h.nonComputeTimeUs},
        {"kernel_time_us", h.kernelTimeUs},
    };
}

} // namespace commprof::trace
