// SPDX-License-Identifier: GPL-3.0-or-later
#include "confirmation.h"

#include "analysis/whatif.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace commprof::analysis {
namespace {

bool sameCap(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a));
}

const Scenario* find(const WhatIf& w, const Setting& s) {
    for (const Scenario& sc : w.scenarios) {
        if (sameCap(sc.capMb, s.bucketCapMb) && sc.hook == s.hook && sc.bandwidthX == 1 &&
            sc.worldSize == w.worldSize) {
            return &sc;
        }
    }
    return nullptr;
}

QJsonArray numbers(const std::vector<double>& v) {
    QJsonArray a;
    for (double x : v) {
        a.append(x);
    }
    return a;
}

std::vector<double> numbersOf(const QJsonValue& v) {
    std::vector<double> out;
    for (const QJsonValue x : v.toArray()) {
        out.push_back(x.toDouble());
    }
    return out;
}

QJsonObject settingJson(const Setting& s, const std::vector<double>& runs) {
    double mean = 0;
    for (double x : runs) {
        mean += x / double(runs.size());
    }
    return {{"bucket_cap_mb", s.bucketCapMb},
            {"hook", s.hook},
            {"step_ms", runs.empty() ? QJsonValue() : QJsonValue(mean)},
            {"runs_ms", numbers(runs)}};
}

} // namespace

std::optional<PredictedDifference>
predictDifference(const DdpStepGraph& graph, const DdpParams* params, const Setting& recorded,
                  const Setting& candidate, QString* why,
                  const std::optional<HookCalibration>& calibration) {
    WhatIfOptions o;
    o.hookCalibration = calibration;
    o.capsMb = {recorded.bucketCapMb, candidate.bucketCapMb};
    o.hooks = {recorded.hook, candidate.hook};
    o.hooks.removeDuplicates();
    o.recordedCapMb = recorded.bucketCapMb;
    const std::optional<WhatIf> w = whatIf(graph, params, o, why);
    if (!w) {
        return std::nullopt;
    }
    const Scenario* a = find(*w, recorded);
    const Scenario* b = find(*w, candidate);
    if (!a || !b) {
        *why = "the what-if model gave no scenario for the recorded or the candidate setting";
        return std::nullopt;
    }
    PredictedDifference p;
    p.recordedStepMs = a->stepMs;
    p.candidateStepMs = b->stepMs;
    p.differenceMs = b->stepMs - a->stepMs;
    p.lowMs = p.differenceMs - b->uncertaintyMs;
    p.highMs = p.differenceMs + b->uncertaintyMs;
    return p;
}

std::optional<bool> Confirmation::predictionHeld() const {
    if (!measured || !predicted) {
        return std::nullopt;
    }
    return measured->meanMs >= predicted->lowMs && measured->meanMs <= predicted->highMs;
}

std::optional<double> steadyStepMs(const std::vector<std::vector<double>>& rankStepMs, int skip) {
    double sum = 0;
    int ranks = 0;
    for (const std::vector<double>& steps : rankStepMs) {
        if (int(steps.size()) <= skip) {
            continue;
        }
        std::vector<double> s(steps.begin() + skip, steps.end());
        std::sort(s.begin(), s.end());
        const std::size_t n = s.size();
        sum += n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
        ++ranks;
    }
    if (ranks == 0) {
        return std::nullopt;
    }
    return sum / ranks;
}

QJsonObject toJson(const Confirmation& c) {
    QJsonObject o{{"recorded", settingJson(c.recorded, c.aMs)},
                  {"candidate", settingJson(c.candidate, c.bMs)}};
    if (c.measured) {
        o["measured"] =
            QJsonObject{{"difference_ms", c.measured->meanMs},
                        {"interval_ms", QJsonArray{c.measured->lowMs, c.measured->highMs}},
                        {"level", c.measured->level},
                        {"rounds", c.measured->pairs},
                        {"sd_ms", c.measured->sdMs}};
    } else {
        o["measured"] = QJsonValue();
    }
    if (c.predicted) {
        o["predicted"] =
            QJsonObject{{"difference_ms", c.predicted->differenceMs},
                        {"interval_ms", QJsonArray{c.predicted->lowMs, c.predicted->highMs}},
                        {"recorded_step_ms", c.predicted->recordedStepMs},
                        {"candidate_step_ms", c.predicted->candidateStepMs}};
    } else {
        o["predicted"] = QJsonValue();
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
        PairedDifference d;
        d.meanMs = m["difference_ms"].toDouble();
        d.lowMs = m["interval_ms"].toArray().at(0).toDouble();
        d.highMs = m["interval_ms"].toArray().at(1).toDouble();
        d.level = m["level"].toDouble();
        d.pairs = m["rounds"].toInt();
        d.sdMs = m["sd_ms"].toDouble();
        c.measured = d;
    }
    if (o["predicted"].isObject()) {
        const QJsonObject p = o["predicted"].toObject();
        PredictedDifference d;
        d.differenceMs = p["difference_ms"].toDouble();
        d.lowMs = p["interval_ms"].toArray().at(0).toDouble();
        d.highMs = p["interval_ms"].toArray().at(1).toDouble();
        d.recordedStepMs = p["recorded_step_ms"].toDouble();
        d.candidateStepMs = p["candidate_step_ms"].toDouble();
        c.predicted = d;
    }
    c.predictionMissing = o["prediction_missing"].toString();
    return c;
}

QString describe(const Confirmation& c) {
    const auto setting = [](const Setting& s) {
        return QString("bucket_cap_mb %1, hook %2").arg(s.bucketCapMb).arg(s.hook);
    };
    QString out = QString("recorded (A): %1\ncandidate (B): %2\n")
                      .arg(setting(c.recorded), setting(c.candidate));
    if (c.measured) {
        const PairedDifference& m = *c.measured;
        out += QString("measured: B - A = %1 ms a step, %2% interval [%3, %4] ms over %5 "
                       "alternations (A %6 ms)\n")
                   .arg(m.meanMs, 0, 'f', 2)
                   .arg(m.level * 100, 0, 'f', 0)
                   .arg(m.lowMs, 0, 'f', 2)
                   .arg(m.highMs, 0, 'f', 2)
                   .arg(m.pairs)
                   .arg(settingJson(c.recorded, c.aMs)["step_ms"].toDouble(), 0, 'f', 2);
    }
    if (c.predicted) {
        out += QString("predicted by trace whatif: %1 ms, interval [%2, %3] ms\n")
                   .arg(c.predicted->differenceMs, 0, 'f', 2)
                   .arg(c.predicted->lowMs, 0, 'f', 2)
                   .arg(c.predicted->highMs, 0, 'f', 2);
    } else {
        out += "predicted: none (" + c.predictionMissing + ")\n";
    }
    if (const auto held = c.predictionHeld()) {
        out += *held ? "the prediction held: the measured difference is inside its interval\n"
                     : "the prediction did not hold: the measured difference is outside its "
                       "interval\n";
    }
    return out.trimmed();
}

} // namespace commprof::analysis
