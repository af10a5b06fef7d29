// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A results folder of a study's size made from the real cells of a smoke run: the world-size-2
// (and where asked the world-size-1) DDP cell copied once per model, bucket cap, hook and repeat
// (its cell.json and rank files renamed to the copy, its traces hard-linked), and the world-size-2
// sweep beside them. The figures then draw 4, 33 or 300 cells of real files without running them.

#include "rank_files.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QStringList>

#include <unistd.h>

struct StudyShape {
    QStringList models;
    QStringList caps;
    QStringList hooks;
    int repeats = 1;
    bool sweep = true;
    QList<int> worldSizes{2}; // 1 and 2: the smoke run has a DDP cell of each
    int cells() const {
        return int(models.size() * caps.size() * hooks.size() * worldSizes.size()) * repeats +
               (sweep ? 1 : 0);
    }
};

namespace study_detail {

inline bool linkOrCopy(const QString& from, const QString& to) {
    return ::link(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0 ||
           QFile::copy(from, to);
}

// The donor's files in `cell`, the records renamed to `id`; `edit` alters cell.json.
template <typename Edit>
bool cloneCell(const QString& donor, const QString& cell, const QString& id, Edit edit) {
    if (!QDir().mkpath(cell)) {
        return false;
    }
    for (const QFileInfo& fi : QDir(donor).entryInfoList(QDir::Files)) {
        const QString to = QDir(cell).filePath(fi.fileName());
        const QString name = fi.fileName();
        if (name == "cell.json") {
            QJsonObject o = readJsonFile(fi.filePath());
            o["id"] = id;
            edit(o);
            if (!writeJsonFile(to, o)) {
                return false;
            }
        } else if (name.startsWith("rank") && name.endsWith(".json")) {
            QJsonObject o = readJsonFile(fi.filePath());
            o["cell_id"] = id;
            if (!writeJsonFile(to, o)) {
                return false;
            }
        } else if (!linkOrCopy(fi.filePath(), to)) {
            return false;
        }
    }
    return true;
}

} // namespace study_detail

// Writes the study into `out`/cells from the smoke run `smokeRun`. Returns false when a file
// could not be written.
inline bool makeStudyFolder(const QString& smokeRun, const QString& out, const StudyShape& s) {
    for (const int ws : s.worldSizes) {
        const QString donor = smokeRun + QString("/cells/mlp2m_gloo_cpu_ws%1_r0").arg(ws);
        if (!QFile::exists(donor + "/manifest.json")) {
            return false;
        }
        for (const QString& model : s.models) {
            for (const QString& cap : s.caps) {
                for (const QString& hook : s.hooks) {
                    for (int r = 0; r < s.repeats; ++r) {
                        const QString id = QString("%1_gloo_cpu_ws%2_cap%3_%4_r%5")
                                               .arg(model)
                                               .arg(ws)
                                               .arg(cap, hook)
                                               .arg(r);
                        const bool ok = study_detail::cloneCell(
                            donor, out + "/cells/" + id, id, [&](QJsonObject& o) {
                                o["model"] = model;
                                o["repeat"] = r;
                                QJsonObject config = o["config"].toObject();
                                config["bucket_cap_mb"] = cap.toDouble();
                                config["hook"] = hook;
                                o["config"] = config;
                                QJsonObject axes = o["axes"].toObject();
                                axes["model"] = model;
                                axes["bucket_cap_mb"] = cap;
                                axes["hook"] = hook;
                                axes["repeat"] = QString::number(r);
                                o["axes"] = axes;
                            });
                        if (!ok) {
                            return false;
                        }
                    }
                }
            }
        }
    }
    if (s.sweep) {
        const QString sweep = "sweep_gloo_cpu_ws2_r0";
        return study_detail::cloneCell(smokeRun + "/cells/" + sweep, out + "/cells/" + sweep, sweep,
                                       [](QJsonObject&) {});
    }
    return true;
}

// The sizes of issue 40: a handful, the tuning study's 33 (2 models x 4 caps x 4 hooks and a
// sweep) and 301 (5 models x 5 caps x 4 hooks x 3 repeats and a sweep: the tuning figure's five
// panels).
inline StudyShape smallStudy() {
    return {{"mlp2m"}, {"1", "25"}, {"allreduce", "fp16_compress"}, 1, false};
}
inline StudyShape tuningStudy() {
    return {{"mlp2m", "transformer2m"},
            {"0.25", "1", "4", "25"},
            {"allreduce", "fp16_compress", "powersgd", "local"},
            1,
            true};
}
// The shape of issue 52's audit: 3 models x 5 caps x 3 hooks x world sizes 1 and 2 x 3 repeats
// and a sweep (271 cells).
inline StudyShape auditStudy() {
    return {{"mlp_a", "mlp_b", "mlp_c"},
            {"0.5", "1", "4", "16", "25"},
            {"allreduce", "fp16_compress", "local"},
            3,
            true,
            {1, 2}};
}
inline StudyShape largeStudy() {
    return {{"mlp_a", "mlp_b", "mlp_c", "mlp_d", "mlp_e"},
            {"0.25", "1", "4", "16", "25"},
            {"allreduce", "fp16_compress", "powersgd", "local"},
            3,
            true};
}
