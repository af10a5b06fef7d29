// SPDX-License-Identifier: GPL-3.0-or-later
#include "recommendation.h"

#include "analysis/bucket_schedule.h"
#include "analysis/ready_times.h"
#include "results/cell_files.h"
#include "trace/statistics.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace commprof::analysis {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// Predicted steps closer than this (relative) to the smallest are a tie.
constexpr double kPredictionTie = 0.01;

struct Members {
    CapGroup group;
    std::vector<results::CellFiles> cells;
};

// What a group's cells share: everything of cell.json but the cap and the repeat.
QString groupKey(const results::CellFiles& f) {
    QJsonObject config = f.cell["config"].toObject();
    config.remove("bucket_cap_mb");
    const QJsonObject key{{"model", f.cell["model"]},
                          {"layer", f.cell["layer"]},
                          {"world_size", f.cell["world_size"]},
                          {"config", config}};
    return QString::fromUtf8(QJsonDocument(key).toJson(QJsonDocument::Compact));
}

double capOf(const results::CellFiles& f) {
    return f.cell["config"].toObject()["bucket_cap_mb"].toDouble(25);
}

// The first complete sweep (by cell id) of each layer and world size, as ingest takes it.
using SweepsByShape =
    std::map<std::pair<QString, int>, std::pair<QString, std::vector<SweepPoint>>>;

SweepsByShape allReduceSweeps(const std::vector<results::CellFiles>& sweeps) {
    SweepsByShape out;
    for (const results::CellFiles& f : sweeps) {
        const std::pair<QString, int> shape{f.cell["layer"].toString(),
                                            f.cell["world_size"].toInt()};
        if (!out.count(shape)) {
            if (auto points = allReducePoints(f.sweeps); !points.empty()) {
                out[shape] = {f.id, std::move(points)};
            }
        }
    }
    return out;
}

void predict(Members& m, const SweepsByShape& sweeps) {
    CapGroup& g = m.group;
    std::sort(m.cells.begin(), m.cells.end(),
              [](const auto& a, const auto& b) { return capOf(a) < capOf(b); });
    for (const results::CellFiles& f : m.cells) {
        g.cells << f.id;
        if (g.measuredCapsMb.empty() || g.measuredCapsMb.back() != capOf(f)) {
            g.measuredCapsMb.push_back(capOf(f));
        }
    }
    QString why;
    const std::optional<double> factor = wireFactor(g.hook, &why);
    if (!factor) {
        g.reason = why;
        return;
    }
    if (g.worldSize < 2) {
        g.reason = "world size 1: the all-reduce moves nothing between ranks, so no cap changes "
                   "what it costs";
        return;
    }
    const auto sweep = sweeps.find({g.layer, g.worldSize});
    if (sweep == sweeps.end()) {
        g.reason = QString("no complete all_reduce sweep of %1 at world size %2 in this folder "
                           "(add a kind: sweep entry to the matrix)")
                       .arg(g.layer)
                       .arg(g.worldSize);
        return;
    }
    g.sweepCell = sweep->second.first;
    g.fit = fitLinear(sweep->second.second);
    if (g.fit.refused) {
        g.reason =
            QString("the sweep %1's all_reduce fit was refused: %2").arg(g.sweepCell, g.fit.reason);
        return;
    }
    // The finest measured cap shows the most launches, so the ready times are best resolved.
    const std::optional<ReadyTimes> ready = readyTimesFromBuckets(m.cells.front(), &why);
    if (!ready) {
        g.reason = "no gradient-ready times: " + why;
        return;
    }
    g.readyTimesFrom = ready->sourceCell;
    std::map<double, std::optional<double>> measured; // cap -> median over its cells
    {
        std::map<double, std::vector<double>> steps;
        for (const results::CellFiles& f : m.cells) {
            if (const auto s = measuredStepMs(f)) {
                steps[capOf(f)].push_back(*s);
            }
        }
        for (const auto& [cap, v] : steps) {
            measured[cap] = trace::median(v);
        }
    }
    std::vector<double> caps = kStandardCapsMb;
    caps.insert(caps.end(), g.measuredCapsMb.begin(), g.measuredCapsMb.end());
    std::sort(caps.begin(), caps.end());
    caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
    const WireCost cost{g.fit.alphaUs, g.fit.betaUsPerByte, *factor};
    for (const double cap : caps) {
        const Schedule s = simulateSchedule(ready->params, {g.firstBucketMb * kMiB, cap * kMiB},
                                            cost, ready->computeEndUs);
        CapCandidate c;
        c.capMb = cap;
        c.buckets = int(s.buckets.size());
        c.predictedExposedMs = s.exposedUs() / 1e3;
        c.predictedStepMs =
            (ready->forwardUs + s.computeEndUs + s.exposedUs() + ready->optimizerUs) / 1e3;
        if (measured.count(cap)) {
            c.measuredStepMs = measured[cap];
        }
        for (const results::CellFiles& f : m.cells) {
            if (capOf(f) == cap) {
                c.measuredCell = f.id;
                break;
            }
        }
        g.candidates.push_back(c);
    }
    // Caps whose predicted steps lie within kPredictionTie of the smallest are ones the model
    // cannot tell apart (the same buckets predict the same step; on a step of hundreds of ms a
    // bucket layout moves a few): of those, the measured one that ran fastest, else the smallest
    // prediction.
    const double smallest =
        std::min_element(g.candidates.begin(), g.candidates.end(),
                         [](const CapCandidate& a, const CapCandidate& b) {
                             return a.predictedStepMs < b.predictedStepMs;
                         })
            ->predictedStepMs;
    const auto tied = [smallest](const CapCandidate& c) {
        return c.predictedStepMs <= smallest * (1.0 + kPredictionTie);
    };
    const auto best = std::min_element(
        g.candidates.begin(), g.candidates.end(),
        [&tied](const CapCandidate& a, const CapCandidate& b) {
            const auto rank = [&tied](const CapCandidate& c) {
                return std::tuple{!tied(c), !c.measuredStepMs,
                                  c.measuredStepMs.value_or(c.predictedStepMs), c.predictedStepMs};
            };
            return rank(a) < rank(b);
        });
    g.recommendedCapMb = best->capMb;
    double sum = 0;
    int n = 0;
    for (const CapCandidate& c : g.candidates) {
        if (const auto e = c.error()) {
            sum += std::fabs(*e);
            ++n;
        }
    }
    if (n > 0) {
        g.mape = sum / n;
    }
}

QJsonValue optional(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QString mb(double v) {
    return QString::number(v, 'g', 6);
}

} // namespace

int CapGroup::measured() const {
    return int(std::count_if(candidates.begin(), candidates.end(),
                             [](const CapCandidate& c) { return c.error().has_value(); }));
}

bool Recommendations::ok() const {
    return std::all_of(groups.begin(), groups.end(),
                       [](const CapGroup& g) { return g.recommendedCapMb.has_value(); });
}

Recommendations recommend(const QString& resultsDir) {
    const QDir cellsDir(QDir(resultsDir).filePath("cells"));
    std::vector<results::CellFiles> sweeps;
    std::map<QString, Members> groups;
    for (const QString& id : cellsDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        results::CellFiles f = results::readCellDir(cellsDir.filePath(id));
        if (results::judge(f).status != "complete") {
            continue; // partial data is never quoted
        }
        if (f.isSweep()) {
            sweeps.push_back(std::move(f));
            continue;
        }
        Members& m = groups[groupKey(f)];
        const QJsonObject config = f.cell["config"].toObject();
        m.group.model = f.cell["model"].toString();
        m.group.layer = f.cell["layer"].toString();
        m.group.worldSize = f.cell["world_size"].toInt();
        m.group.hook = config["hook"].toString("allreduce");
        m.group.firstBucketMb = config["first_bucket_mb"].toDouble(1);
        m.cells.push_back(std::move(f));
    }
    const auto bySweep = allReduceSweeps(sweeps);
    Recommendations r;
    for (auto& [key, m] : groups) {
        predict(m, bySweep);
        r.groups.push_back(std::move(m.group));
    }
    return r;
}

QJsonObject toJson(const Recommendations& r) {
    QJsonArray groups;
    for (const CapGroup& g : r.groups) {
        QJsonArray candidates;
        for (const CapCandidate& c : g.candidates) {
            candidates.append(QJsonObject{{"bucket_cap_mb", c.capMb},
                                          {"buckets", c.buckets},
                                          {"predicted_step_ms", c.predictedStepMs},
                                          {"predicted_exposed_ms", c.predictedExposedMs},
                                          {"measured_step_ms", optional(c.measuredStepMs)},
                                          {"measured_cell", c.measuredCell.isEmpty()
                                                                ? QJsonValue(QJsonValue::Null)
                                                                : QJsonValue(c.measuredCell)},
                                          {"error", optional(c.error())}});
        }
        QJsonObject o{{"model", g.model},
                      {"layer", g.layer},
                      {"world_size", g.worldSize},
                      {"hook", g.hook},
                      {"first_bucket_mb", g.firstBucketMb},
                      {"cells", QJsonArray::fromStringList(g.cells)},
                      {"recommended_bucket_cap_mb", optional(g.recommendedCapMb)},
                      {"mape", optional(g.mape)},
                      {"measured", g.measured()},
                      {"candidates", candidates}};
        if (!g.reason.isEmpty()) {
            o["reason"] = g.reason;
        } else {
            o["ready_times_from"] = g.readyTimesFrom;
            o["sweep_cell"] = g.sweepCell;
            o["alpha_us"] = g.fit.alphaUs;
            o["beta_us_per_byte"] = g.fit.betaUsPerByte;
        }
        groups.append(o);
    }
    return QJsonObject{{"groups", groups}};
}

QString describe(const CapGroup& g) {
    QString out = QString("%1 on %2, world size %3, hook %4, first bucket %5 MiB (%6)\n")
                      .arg(g.model, g.layer)
                      .arg(g.worldSize)
                      .arg(g.hook, mb(g.firstBucketMb), g.cells.join(", "));
    if (!g.reason.isEmpty()) {
        QStringList caps;
        for (const double c : g.measuredCapsMb) {
            caps << mb(c);
        }
        return out + QString("  measured caps %1 MiB; not predicted: %2\n")
                         .arg(caps.join(", "), g.reason);
    }
    out += QString("  ready times from %1's bucket launches; cost %2 us + %3 us/B x wire bytes "
                   "from %4's all_reduce fit\n")
               .arg(g.readyTimesFrom)
               .arg(g.fit.alphaUs, 0, 'f', 1)
               .arg(g.fit.betaUsPerByte, 0, 'g', 3)
               .arg(g.sweepCell);
    out += "  cap MiB  buckets  predicted step  predicted exposed  measured step  error\n";
    for (const CapCandidate& c : g.candidates) {
        const auto e = c.error();
        out += QString("  %1  %2  %3 ms  %4 ms  %5  %6\n")
                   .arg(mb(c.capMb), 7)
                   .arg(c.buckets, 7)
                   .arg(c.predictedStepMs, 11, 'f', 2)
                   .arg(c.predictedExposedMs, 14, 'f', 2)
                   .arg(c.measuredStepMs ? QString::number(*c.measuredStepMs, 'f', 2) + " ms"
                                         : QString("-"),
                        13)
                   .arg(e ? QString("%1 %").arg(*e * 100, 0, 'f', 1) : QString("-"), 7);
    }
    out += QString("  recommended: %1 MiB\n").arg(mb(*g.recommendedCapMb));
    out += g.mape ? QString("  MAPE: %1 % over %2 measured caps (measured: median of rank 0's "
                            "step_ms over the recorded iterations)\n")
                        .arg(*g.mape * 100, 0, 'f', 1)
                        .arg(g.measured())
                  : QString("  MAPE: none (no cap of this group was measured)\n");
    return out;
}

} // namespace commprof::analysis
