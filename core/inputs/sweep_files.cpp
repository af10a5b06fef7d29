// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_files.h"

#include "results/rank_file.h"
#include "spec/rank_contract.h"

#include <QDir>

namespace commprof::inputs {

std::vector<analysis::SweepSeries> readSweep(const QString& dir, QStringList* problems) {
    QMap<int, results::SweepRecord> docs;
    const QStringList files = QDir(dir).entryList(
        {QString::fromStdString(spec::files::kSweep.glob())}, QDir::Files, QDir::Name);
    for (const QString& name : files) {
        const results::RankFile file = results::readRankFile(QDir(dir).filePath(name));
        if (!file.ok()) {
            if (problems) {
                *problems << file.problem;
            }
            continue;
        }
        docs[file.sweep.rank] = file.sweep;
    }
    return analysis::mergeSweep(docs, problems);
}

} // namespace commprof::inputs
