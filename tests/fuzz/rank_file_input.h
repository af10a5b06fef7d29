// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the rank-file fuzzer does with one input, shared with the corpus replay in ctest: read
// it as rank 0 of a cell, judge the cell and compute its figures. A file the reader accepts
// must keep the promises the store relies on (iteration numbers unique and in int range,
// bucket keys unique, integers where the store keeps integers) and give no NaN; a file it
// refuses must say why.

#include "analysis/cell_metrics.h"
#include "results/cell_files.h"
#include "results/rank_file.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cmath>
#include <cstdlib>
#include <optional>

namespace commprof::fuzz {

inline void requireFinite(const std::optional<double>& v) {
    if (v && !std::isfinite(*v)) {
        std::abort();
    }
}

// True when the input was accepted.
inline bool exerciseRankFile(const char* data, std::size_t size) {
    const QByteArray bytes(data, qsizetype(size));
    const results::RankFile f = results::parseRankFile(bytes, "rank0.json");
    if (!f.ok()) {
        if (!f.problem.startsWith("rank0.json") || f.record.worldSize != 0 ||
            !f.record.buckets.empty()) {
            std::abort();
        }
        return false;
    }
    // The promises checked on the JSON itself, not on the reader's record.
    const QJsonObject doc = QJsonDocument::fromJson(bytes).object();
    QSet<int> iterations;
    for (const QJsonValue v : doc["iterations"].toArray()) {
        const int iter = v.toObject()["iter"].toInt(-1);
        if (iter < 0 || iterations.contains(iter)) {
            std::abort();
        }
        iterations.insert(iter);
    }
    QSet<QPair<int, int>> buckets;
    for (const QJsonValue v : doc["buckets"].toArray()) {
        const QJsonObject b = v.toObject();
        const QPair<int, int> key{b["iter"].toInt(-1), b["index"].toInt(-1)};
        if (key.first < 0 || key.second < 0 || buckets.contains(key) ||
            b["start_ns"].toInteger(-1) < 0 || b["end_ns"].toInteger(-1) < 0) {
            std::abort();
        }
        buckets.insert(key);
    }
    results::CellFiles cell;
    cell.dir = "fuzz";
    cell.id = "fuzz";
    cell.hasManifest = true;
    cell.cell = QJsonObject{{"id", "fuzz"}, {"world_size", doc["world_size"]}};
    cell.records[0] = f.record;
    const results::Completeness c = results::judge(cell);
    if (c.status != "complete" && c.status != "incomplete") {
        std::abort();
    }
    const analysis::CellMetrics m = analysis::analyzeCell(cell);
    requireFinite(m.stepMs);
    requireFinite(m.hookCommMs);
    if (!std::isfinite(m.peakHostBytes) || !std::isfinite(m.peakDeviceBytes)) {
        std::abort();
    }
    return true;
}

} // namespace commprof::fuzz
