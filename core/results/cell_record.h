// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// cell.json as typed values (docs/formats.md, "Results directory"), made once where the file is
// read (cell_files.h). A DDP setting missing from `config` takes DDP's default; one of the wrong
// type is refused (the cell is then incomplete with the field named), never defaulted.

#include <QJsonObject>
#include <QString>

#include <optional>

namespace commprof::results {

struct CellConfig {
    double bucketCapMb = 25;  // DDP's default
    double firstBucketMb = 1; // the rank's default (Python DDP 1.13's first bucket)
    QString hook = "allreduce";
    QString link = "loopback"; // the emulated link its ranks crossed (matrix `link`)
    // Every setting as cell.json lists it (what cells of a group share besides the cap).
    QJsonObject all;
};

struct CellRecord {
    QString id;
    QString kind = "ddp"; // ddp | sweep
    QString status;
    QString model, layer;
    int worldSize = 0;
    CellConfig config;
};

// nullopt with *problem ("cell.json: config.bucket_cap_mb: expected a number, found a string")
// when a field has the wrong type.
std::optional<CellRecord> parseCellRecord(const QJsonObject& cell, QString* problem);

} // namespace commprof::results
