// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One rank{R}.json (or a sweep's sweep_rank{R}.json) as commprof-rank writes it
// (docs/formats.md), read and checked before anything uses it: a regular file (never a link, a
// device or a FIFO) of bounded size, a JSON object, and the fields the store keys on (rank, world
// size, iteration and bucket numbers) in range and unique, every field as rank_fields.h declares
// it. What is wrong is one line naming the file and the field.

#include "results/rank_record.h"

#include <QByteArray>
#include <QString>

namespace commprof::results {

struct RankFile {
    RankRecord record; // a rank{R}.json
    SweepRecord sweep; // a sweep_rank{R}.json
    bool isSweep = false;
    QString problem; // empty when the file is usable
    bool ok() const { return problem.isEmpty(); }
    int rank() const { return isSweep ? sweep.rank : record.rank; }
    int worldSize() const { return isSweep ? sweep.worldSize : record.worldSize; }
};

// The largest rank file read (COMMPROF_MAX_RANK_FILE_BYTES overrides it).
qint64 maxRankFileBytes();

RankFile readRankFile(const QString& path);
// `name` (the file name) starts every problem; sweep_rank*.json is checked as a sweep's file.
RankFile parseRankFile(const QByteArray& bytes, const QString& name);

} // namespace commprof::results
