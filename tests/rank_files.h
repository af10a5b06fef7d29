#pragma once
// Reading rank files in tests.

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

inline QJsonObject readJsonFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object();
}

inline QString rankBinary() {
    return QString(COMMPROF_BIN_DIR "/commprof-rank");
}
