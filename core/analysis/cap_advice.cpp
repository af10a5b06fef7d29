// SPDX-License-Identifier: GPL-3.0-or-later
#include "cap_advice.h"

#include "matrix/yaml_input.h"
#include "results/cell_files.h"

#include <cmath>
#include <exception>

namespace commprof::analysis {
namespace {

// The sample standard deviation (n - 1) over sqrt(n); none from fewer than two values.
std::optional<double> standardError(const std::vector<double>& v) {
    if (v.size() < 2) {
        return std::nullopt;
    }
    double mean = 0;
    for (const double x : v) {
        mean += x;
    }
    mean /= double(v.size());
    double ss = 0;
    for (const double x : v) {
        ss += (x - mean) * (x - mean);
    }
    return std::sqrt(ss / double(v.size() - 1)) / std::sqrt(double(v.size()));
}

const CapCandidate* candidateAt(const CapGroup& g, double capMb) {
    for (const CapCandidate& c : g.candidates) {
        if (c.capMb == capMb) {
            return &c;
        }
    }
    return nullptr;
}

QString mb(double v) {
    return QString::number(v, 'g', 6);
}

QString ms(double v) {
    return QString::number(v, 'f', 2);
}

QString nowText(const CapAdvice& a) {
    if (!a.currentCapMb) {
        return {};
    }
    QString now = "now " + mb(*a.currentCapMb);
    if (a.currentFrom == "ddp_default") {
        now += ", DDP's default, assumed";
    }
    return now;
}

} // namespace

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
    if (g.hook == "local") {
        a.reason = "hook local communicates nothing, so no bucket cap changes its step";
        return a;
    }
    const CapCandidate* current = candidateAt(g, currentCapMb);
    const CapCandidate* fastest = candidateAt(g, *g.fastestCapMb);
    if (!current || !fastest) {
        a.reason = QString("the current cap %1 MiB was not predicted").arg(mb(currentCapMb));
        return a;
    }
    const double seCurrent = current->stepStandardErrorMs.value_or(0);
    const double seFastest = fastest->stepStandardErrorMs.value_or(0);
    double variance = seCurrent * seCurrent + seFastest * seFastest;
    if (current->measuredStepMs && fastest->measuredStepMs) {
        a.savingFrom = "measured";
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
    if (*a.savingMs <= *a.uncertaintyMs) {
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

QString groupName(const CapGroup& g) {
    return QString("%1 on %2, world size %3, hook %4")
        .arg(g.model, results::networkOf(g.layer, g.link))
        .arg(g.worldSize)
        .arg(g.hook);
}

QString actionLine(const CapGroup& g) {
    const CapAdvice& a = g.advice;
    const QString basis = a.savingFrom == "measured" ? "measured at both caps"
                                                     : "predicted; the model's held-out error "
                                                       "and the measured spread";
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
        QString line = QString("keep bucket_cap_mb: %1: no cap is faster").arg(mb(*a.currentCapMb));
        if (a.currentFrom == "ddp_default") {
            line += " (now DDP's default, assumed)";
        }
        return line;
    }
    return QString("set bucket_cap_mb: %1 (%2): -%3 ms a step (±%4 ms, %5)")
        .arg(mb(*g.recommendedCapMb), nowText(a), ms(*a.savingMs), ms(*a.uncertaintyMs), basis);
}

std::optional<double> matrixScalarCapMb(const QString& matrixYaml) {
    if (matrixYaml.trimmed().isEmpty()) {
        return std::nullopt;
    }
    try {
        const YAML::Node root = matrix::loadYaml(matrixYaml.toUtf8(), "run.json matrix_yaml");
        if (!root.IsMap() || !root["defaults"] || !root["defaults"].IsMap()) {
            return std::nullopt;
        }
        const YAML::Node cap = root["defaults"]["bucket_cap_mb"];
        if (!cap || !cap.IsScalar()) {
            return std::nullopt; // absent or a list: no one current cap written
        }
        bool ok = false;
        const double v = QString::fromStdString(cap.Scalar()).toDouble(&ok);
        return ok && std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt; // a text that does not parse names no cap; the run said why then
    }
}

} // namespace commprof::analysis
