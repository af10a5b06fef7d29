// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading rank files in tests.

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>

inline QJsonObject readJsonFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object();
}

// A results directory copied, to be altered by a test without touching the original.
inline bool copyDir(const QString& from, const QString& to) {
    QDir().mkpath(to);
    for (const QFileInfo& fi :
         QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString dest = QDir(to).filePath(fi.fileName());
        if (fi.isDir() ? !copyDir(fi.filePath(), dest) : !QFile::copy(fi.filePath(), dest)) {
            return false;
        }
    }
    return true;
}

inline QString rankBinary() {
    return QString(COMMPROF_BIN_DIR "/commprof-rank");
}

// The torchrun-style rendezvous environment of one rank on loopback; the store token is left
// unset unless given.
inline QProcessEnvironment rankEnvironment(int rank, int world, int port,
                                           const QString& storeToken = QString()) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RANK", QString::number(rank));
    env.insert("WORLD_SIZE", QString::number(world));
    env.insert("MASTER_ADDR", "127.0.0.1");
    env.insert("MASTER_PORT", QString::number(port));
    env.remove("COMMPROF_STORE_TOKEN");
    if (!storeToken.isNull()) {
        env.insert("COMMPROF_STORE_TOKEN", storeToken);
    }
    return env;
}

inline bool writeJsonFile(const QString& path, const QJsonObject& o) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson()) > 0;
}

// What a host OOM at the end of a world-size-8 cell leaves in a results directory of the smoke
// matrix: ranks 2-4 wrote their files (copied from the real ws2 cell), two ranks died
// mid-write (.tmp files), rank 0 and the manifest never came.
inline bool addOomLeftovers(const QString& resultsDir) {
    const QString donor = resultsDir + "/cells/mlp2m_gloo_cpu_ws2_r0";
    const QString cell = resultsDir + "/cells/mlp2m_gloo_cpu_ws8_r0";
    QDir().mkpath(cell);
    QJsonObject cellJson = readJsonFile(donor + "/cell.json");
    cellJson["id"] = "mlp2m_gloo_cpu_ws8_r0";
    cellJson["world_size"] = 8;
    cellJson["status"] = "running";
    bool ok = writeJsonFile(cell + "/cell.json", cellJson);
    for (int r : {2, 3, 4}) {
        QJsonObject f = readJsonFile(donor + "/rank1.json");
        f["rank"] = r;
        f["world_size"] = 8;
        f["cell_id"] = "mlp2m_gloo_cpu_ws8_r0";
        ok = writeJsonFile(QString("%1/rank%2.json").arg(cell).arg(r), f) && ok;
    }
    for (int r : {5, 6}) {
        QFile tmp(QString("%1/rank%2.json.tmp").arg(cell).arg(r));
        ok = tmp.open(QIODevice::WriteOnly) && tmp.write("{\"schema_version\":1,\"ra") > 0 && ok;
    }
    return ok;
}
