// SPDX-License-Identifier: GPL-3.0-or-later
#include "cap_advice.h"

#include "analysis/number_text.h"
#include "analysis/saving_rule.h"
#include "spec/comm_hooks.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace commprof::analysis {
namespace {

// The sample standard deviation (n - 1) over sqrt(n); none from fewer than two values.
std::optional<double> standardError(const std::vector<double>& v) {
    if (v.size() < 2) {
        return std::nullopt;
    }
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    const double ss = std::accumulate(v.begin(), v.end(), 0.0, [&](double sum, double x) {
        return sum + (x - mean) * (x - mean);
    });
    return std::sqrt(ss / double(v.size() - 1)) / std::sqrt(double(v.size()));
}

const CapCandidate* candidateAt(const CapGroup& g, double capMb) {
    const auto it = std::ranges::find(g.candidates, capMb, &CapCandidate::capMb);
    return it == g.candidates.end() ? nullptr : &*it;
}

// A measured cap's spread, and what it counts (cap_advice.h).
std::pair<double, QString> spreadOf(const CapCandidate& c, const RunDrift& drift) {
    const double se = c.stepStandardErrorMs.value_or(0);
    if (c.spreadFrom == "repeats") {
        return {se, "repeats"};
    }
    if (drift.relative && c.measuredStepMs) {
        return {std::max(se, *drift.relative * *c.measuredStepMs), "run drift"};
    }
    return {se, "iterations"};
}

bool sameLayout(const CapCandidate& a, const CapCandidate& b) {
    return a.buckets == b.buckets &&
           std::abs(a.predictedStepMs - b.predictedStepMs) <= 1e-9 * std::abs(a.predictedStepMs);
}

} // namespace

RunDrift runDrift(const std::vector<CapGroup>& groups) {
    double squares = 0;
    int freedom = 0;
    RunDrift d;
    for (const CapGroup& g : groups) {
        std::vector<bool> seen(g.candidates.size(), false);
        for (std::size_t i = 0; i < g.candidates.size(); ++i) {
            if (seen[i] || !g.candidates[i].measuredStepMs) {
                continue;
            }
            std::vector<double> same;
            for (std::size_t j = i; j < g.candidates.size(); ++j) {
                if (!seen[j] && g.candidates[j].measuredStepMs &&
                    sameLayout(g.candidates[i], g.candidates[j])) {
                    seen[j] = true;
                    same.push_back(*g.candidates[j].measuredStepMs);
                }
            }
            if (same.size() < 2) {
                continue;
            }
            double mean = 0;
            for (const double x : same) {
                mean += x / double(same.size());
            }
            for (const double x : same) {
                squares += std::pow((x - mean) / mean, 2);
            }
            freedom += int(same.size()) - 1;
            d.cells += int(same.size());
        }
    }
    if (freedom > 0) {
        d.relative = std::sqrt(squares / freedom);
    } else {
        d.cells = 0;
    }
    return d;
}

StepError stepStandardErrorMs(const std::vector<double>& repeatMediansMs,
                              const std::vector<double>& iterationStepsMs) {
    if (repeatMediansMs.size() >= 2) {
        return {standardError(repeatMediansMs), "repeats"};
    }
    if (const auto se = standardError(iterationStepsMs)) {
        return {se, "iterations"};
    }
    return {};
}

std::pair<double, QString> currentCapOf(const CapGroup& g, const CurrentCap& current) {
    if (current.namedMb) {
        return {*current.namedMb, "named"};
    }
    if (current.matrixMb) {
        return {*current.matrixMb, "matrix"};
    }
    if (g.measuredCapsMb.size() == 1) {
        return {g.measuredCapsMb.front(), "measured"};
    }
    return {kDdpDefaultCapMb, "ddp_default"};
}

CapAdvice advise(const CapGroup& g, double currentCapMb, const QString& from) {
    CapAdvice a;
    a.currentCapMb = currentCapMb;
    a.currentFrom = from;
    if (!g.reason.isEmpty() || !g.fastestCapMb) {
        a.reason = "not predicted: " + g.reason;
        return a;
    }
    if (spec::sendsNothing(g.hook.toStdString())) {
        a.reason = "hook local communicates nothing, so no bucket cap changes its step";
        return a;
    }
    const CapCandidate* current = candidateAt(g, currentCapMb);
    const CapCandidate* fastest = candidateAt(g, *g.fastestCapMb);
    if (!current || !fastest) {
        a.reason = QString("the current cap %1 MiB was not predicted").arg(mb(currentCapMb));
        return a;
    }
    const auto [uCurrent, fromCurrent] = spreadOf(*current, g.drift);
    const auto [uFastest, fromFastest] = spreadOf(*fastest, g.drift);
    double variance = uCurrent * uCurrent + uFastest * uFastest;
    if (current->measuredStepMs && fastest->measuredStepMs) {
        a.savingFrom = "measured";
        // The weaker of the two: a drift not measured for one cap is not measured for the saving.
        a.spreadFrom = fromCurrent == "iterations" || fromFastest == "iterations" ? "iterations"
                       : fromCurrent == "run drift" || fromFastest == "run drift" ? "run drift"
                                                                                  : "repeats";
        a.savingMs = *current->measuredStepMs - *fastest->measuredStepMs;
    } else {
        // The model's error on the caps that were run, as the fastest cap's rule takes it.
        const double m = g.heldOut ? g.mape.value_or(0) : 0.10;
        a.savingFrom = "predicted";
        a.savingMs = current->predictedStepMs - fastest->predictedStepMs;
        variance +=
            std::pow(m * current->predictedStepMs, 2) + std::pow(m * fastest->predictedStepMs, 2);
    }
    a.uncertaintyMs = std::sqrt(variance);
    if (current == fastest) {
        return a; // keep it: a recommendation too, of no change
    }
    if (judgeSaving(*a.savingMs, *a.uncertaintyMs) != Saving::BeyondUncertainty) {
        a.reason = "the caps differ by less than the noise";
    }
    return a;
}

void applyAdvice(CapGroup& g, double currentCapMb, const QString& from) {
    g.advice = advise(g, currentCapMb, from);
    g.recommendedCapMb.reset();
    if (g.advice.reason.isEmpty() && g.fastestCapMb) {
        g.recommendedCapMb = g.fastestCapMb;
    }
}

} // namespace commprof::analysis
