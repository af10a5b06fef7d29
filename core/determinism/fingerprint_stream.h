// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One rank's fp_rank{R}.jsonl (written by commprof-rank --fingerprint), as value types.

#include <QJsonArray>
#include <QMap>
#include <QString>

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
    QString layers;    // the header's: semantic, op or semantic,op
    QString digest;    // the header's description of the digest
    QString path;
    std::vector<FpRecord> records; // in seq order
    QMap<QString, int> byKey;      // key -> index into records
    bool truncated = false;
    const FpRecord* find(const QString& key) const; // null where the stream has no such record
};

// A fingerprint file, and one of its lines, larger than these are refused, named with the limit
// and the variable that raises it: the rank writes what its --fp-max-bytes allows, unbounded by
// default, and a damaged file must not cost its size in memory.
inline constexpr qint64 kDefaultMaxFingerprintBytes = qint64(1) << 30;
inline constexpr qint64 kDefaultMaxFingerprintLineBytes = qint64(16) << 20;
inline constexpr const char* kMaxFingerprintBytesEnv = "COMMPROF_MAX_FINGERPRINT_BYTES";
inline constexpr const char* kMaxFingerprintLineBytesEnv = "COMMPROF_MAX_FINGERPRINT_LINE_BYTES";

// Every fp_rank*.jsonl in DIR, by rank: a name the rank does not write, a file without its
// header or whose header names another rank is refused. Throws std::runtime_error naming the file
// and line.
QMap<int, FpStream> loadFingerprints(const QString& dir);

} // namespace commprof::determinism
