// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What one cell directory holds, read once, and the completeness rule of docs/formats.md:
// a cell is complete only with a manifest, a rank 0 file, and as many rank files as the world
// size recorded inside them, all agreeing on world size, cell id and model signature.

#include "results/cell_record.h"
#include "results/rank_record.h"

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::results {

struct CellFiles {
    QString dir;
    QString id;        // the directory name
    QJsonObject cell;  // cell.json (the runner's record), empty if absent
    CellRecord record; // the same, typed (defaults when absent or refused)
    bool hasManifest = false;
    QMap<int, RankRecord> records; // rank{R}.json that parsed
    QStringList unreadable;        // "rank2.json unparseable: ..."
    QStringList leftovers;         // *.tmp files a dying rank left
    QMap<int, QString> traces;     // rank -> trace path
    QMap<int, SweepRecord> sweeps; // sweep_rank{R}.json that parsed (a kind: sweep cell)
    bool isSweep() const { return cell["kind"].toString() == "sweep" || !sweeps.isEmpty(); }
};

CellFiles readCellDir(const QString& dir);
// Every cell folder of a results folder (DIR/cells/*, by name), read.
std::vector<CellFiles> readCells(const QString& resultsDir);

// What a cell's ranks communicated over, by which sweeps and DDP cells are paired: the layer,
// and the emulated link's rate where it is not loopback ("gloo_cpu over 1gbit").
QString networkOf(const QString& layer, const QString& link);
QString networkOf(const QJsonObject& cell); // a cell.json

// A small JSON record of the runner's (cell.json, manifest.json, run.json): a regular file, not
// a link, holding an object. Empty with *problem set otherwise.
QJsonObject readRecord(const QString& path, QString* problem = nullptr);

struct Completeness {
    QString status; // complete | incomplete | failed | skipped_infeasible
    QStringList reasons;
    int worldSize = 0;
};

Completeness judge(const CellFiles& files);

} // namespace commprof::results
