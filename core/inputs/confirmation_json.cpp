// SPDX-License-Identifier: GPL-3.0-or-later
#include "confirmation_json.h"

#include "results/json_kind.h"
#include "spec/mapped.h"

#include <QJsonArray>

namespace commprof::inputs {

using analysis::Confirmation;
using analysis::PairedDifference;
using analysis::PredictedDifference;
using analysis::Setting;

namespace {

std::vector<double> numbersOf(const QJsonValue& v) {
    return spec::mapped<std::vector<double>>(v.toArray(),
                                             [](const QJsonValue& x) { return x.toDouble(); });
}

QJsonObject settingJson(const Setting& s, const std::vector<double>& runs) {
    double mean = 0;
    for (double x : runs) {
        mean += x / double(runs.size());
    }
    return {{"bucket_cap_mb", s.bucketCapMb},
            {"hook", s.hook},
            {"step_ms", runs.empty() ? QJsonValue() : QJsonValue(mean)},
            {"runs_ms", results::jsonArray(runs)}};
}

} // namespace

QJsonObject toJson(const Confirmation& c) {
    QJsonObject o{{"recorded", settingJson(c.recorded, c.aMs)},
                  {"candidate", settingJson(c.candidate, c.bMs)}};
    o["measured"] = QJsonValue();
    o["predicted"] = QJsonValue();
    if (c.measured) {
        o["measured"] =
            QJsonObject{{"difference_ms", c.measured->meanMs},
                        {"interval_ms", QJsonArray{c.measured->lowMs, c.measured->highMs}},
                        {"level", c.measured->level},
                        {"rounds", c.measured->pairs},
                        {"sd_ms", c.measured->sdMs}};
    }
    if (c.predicted) {
        o["predicted"] =
            QJsonObject{{"difference_ms", c.predicted->differenceMs},
                        {"interval_ms", QJsonArray{c.predicted->lowMs, c.predicted->highMs}},
                        {"recorded_step_ms", c.predicted->recordedStepMs},
                        {"candidate_step_ms", c.predicted->candidateStepMs}};
    } else {
        o["prediction_missing"] = c.predictionMissing;
    }
    const std::optional<bool> held = c.predictionHeld();
    o["prediction_held"] = held ? QJsonValue(*held) : QJsonValue();
    return o;
}

std::optional<Confirmation> confirmationFromJson(const QJsonObject& o) {
    if (!o["recorded"].isObject() || !o["candidate"].isObject()) {
        return std::nullopt;
    }
    Confirmation c;
    const QJsonObject r = o["recorded"].toObject(), k = o["candidate"].toObject();
    c.recorded = {r["bucket_cap_mb"].toDouble(), r["hook"].toString()};
    c.candidate = {k["bucket_cap_mb"].toDouble(), k["hook"].toString()};
    c.aMs = numbersOf(r["runs_ms"]);
    c.bMs = numbersOf(k["runs_ms"]);
    if (o["measured"].isObject()) {
        const QJsonObject m = o["measured"].toObject();
        c.measured = PairedDifference{.pairs = m["rounds"].toInt(),
                                      .meanMs = m["difference_ms"].toDouble(),
                                      .lowMs = m["interval_ms"].toArray().at(0).toDouble(),
                                      .highMs = m["interval_ms"].toArray().at(1).toDouble(),
                                      .level = m["level"].toDouble(),
                                      .sdMs = m["sd_ms"].toDouble()};
    }
    if (o["predicted"].isObject()) {
        const QJsonObject p = o["predicted"].toObject();
        c.predicted = PredictedDifference{.differenceMs = p["difference_ms"].toDouble(),
                                          .lowMs = p["interval_ms"].toArray().at(0).toDouble(),
                                          .highMs = p["interval_ms"].toArray().at(1).toDouble(),
                                          .recordedStepMs = p["recorded_step_ms"].toDouble(),
                                          .candidateStepMs = p["candidate_step_ms"].toDouble()};
    }
    c.predictionMissing = o["prediction_missing"].toString();
    return c;
}

} // namespace commprof::inputs
