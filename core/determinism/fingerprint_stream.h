// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One rank's fp_rank{R}.jsonl (written by commprof-rank --fingerprint), as value types.

#include <QJsonArray>
#include <QMap>
#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::determinism {

struct FpRecord {
    qint64 seq = 0;
    int iteration = 0;
    QString layer; // op | semantic
    QString id;    // name:occurrence within the iteration
    QString name;
    bool collective = false;
    QString artifact; // uninitialized | inflight_collective | empty
    QJsonArray inputs;
    QJsonArray outputs;
    QString key() const { return QString("%1/%2/%3").arg(iteration).arg(layer, id); }
    QString signature() const; // shapes and dtypes of inputs and outputs
};

struct FpStream {
    int rank = -1;
    int worldSize = 0; // from the stream's header
    QString path;
    std::vector<FpRecord> records; // in seq order
    QMap<QString, int> byKey;      // key -> index into records
    bool truncated = false;
};

// Every fp_rank*.jsonl in DIR, by rank. Throws std::runtime_error naming the file and line.
QMap<int, FpStream> loadFingerprints(const QString& dir);

} // namespace commprof::determinism
