// SPDX-License-Identifier: GPL-3.0-or-later
#include "fingerprint_stream.h"

#include "files/line_reader.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <stdexcept>

namespace commprof::determinism {
namespace {

QString shapes(const QJsonArray& tensors) {
    QStringList parts;
    for (const QJsonValue v : tensors) {
        const QJsonObject t = v.toObject();
        const auto dims = spec::mapped<QStringList>(t["shape"].toArray(), [](const QJsonValue& d) {
            return QString::number(d.toInteger());
        });
        parts << t["dtype"].toString() + "[" + dims.join(",") + "]";
    }
    return parts.join(" ");
}

[[noreturn]] void refuse(const QString& where, const QString& what) {
    throw std::runtime_error((where + ": " + what).toStdString());
}

// fp_rank7.jsonl -> 7. A name the rank would not write (fp_rank00, fp_rank4294967296, fp_rankX)
// is refused: read as some rank's, it would stand in for that rank's stream, or shadow it.
int rankOfName(const QString& dir, const QString& file) {
    static const QRegularExpression name(
        QString("^%1(0|[1-9][0-9]{0,8})%2$")
            .arg(QRegularExpression::escape(spec::files::kFingerprint.prefix),
                 QRegularExpression::escape(spec::files::kFingerprint.suffix)));
    const auto m = name.match(file);
    if (!m.hasMatch()) {
        refuse(QDir(dir).filePath(file),
               "not a fingerprint file name: commprof-rank writes fp_rank{R}.jsonl, R a rank "
               "(0 to world_size - 1) without leading zeros; rename or remove it");
    }
    return m.captured(1).toInt();
}

FpStream readStream(const QString& path, int rank) {
    FpStream s;
    s.rank = rank;
    s.path = path;
    const files::LineLimits limits{
        files::limitFromEnv(kMaxFingerprintBytesEnv, kDefaultMaxFingerprintBytes),
        files::limitFromEnv(kMaxFingerprintLineBytesEnv, kDefaultMaxFingerprintLineBytes),
        QString("raise it with %1=N").arg(kMaxFingerprintBytesEnv),
        QString("raise it with %1=N").arg(kMaxFingerprintLineBytesEnv)};
    files::LineReader reader(path, limits, files::Links::Refuse);
    bool header = false;
    QByteArray raw;
    while (reader.next(raw)) {
        const QByteArray line = raw.trimmed();
        const QString where = QString("%1:%2").arg(path).arg(reader.lineNumber());
        if (line.isEmpty()) {
            continue;
        }
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject()) {
            refuse(where, "not a JSON record: " + (err.error != QJsonParseError::NoError
                                                       ? err.errorString()
                                                       : QString("not an object")));
        }
        const QJsonObject o = doc.object();
        if (o.contains("header")) {
            if (header) {
                refuse(where, "a second header");
            }
            header = true;
            s.worldSize = o["world_size"].toInt();
            s.layers = o["layers"].toString();
            s.digest = o["digest"].toString();
            if (s.worldSize < 1 || rank >= s.worldSize) {
                refuse(where, QString("world_size %1: the file's rank %2 is not a rank of it")
                                  .arg(o["world_size"].toVariant().toString())
                                  .arg(rank));
            }
            if (o["rank"].toInt(-1) != rank) {
                refuse(where, QString("rank %1 in the header, but the file is rank %2's")
                                  .arg(o["rank"].toVariant().toString())
                                  .arg(rank));
            }
            continue;
        }
        if (!header) {
            refuse(where, "a record before the header (commprof-rank writes the header first)");
        }
        if (o["truncated"].toBool()) {
            s.truncated = true;
            continue;
        }
        s.records.push_back({.seq = o["seq"].toInteger(),
                             .iteration = o["iter"].toInt(),
                             .layer = o["layer"].toString(),
                             .id = o["id"].toString(),
                             .name = o["name"].toString(),
                             .collective = o["collective"].toBool(),
                             .artifact = o["artifact"].toString(),
                             .inputs = o["inputs"].toArray(),
                             .outputs = o["outputs"].toArray()});
    }
    if (!header) {
        refuse(path, "no header line (not written by commprof-rank --fingerprint)");
    }
    std::ranges::sort(s.records, {}, &FpRecord::seq);
    for (int i = 0; i < int(s.records.size()); ++i) {
        s.byKey.insert(s.records[std::size_t(i)].key(), i);
    }
    return s;
}

} // namespace

QString FpRecord::signature() const {
    return shapes(inputs) + " -> " + shapes(outputs);
}

const FpRecord* FpStream::find(const QString& key) const {
    const auto it = byKey.find(key);
    return it == byKey.end() ? nullptr : &records[std::size_t(*it)];
}

QMap<int, FpStream> loadFingerprints(const QString& dir) {
    QMap<int, FpStream> out;
    const QString glob = QString::fromStdString(spec::files::kFingerprint.glob());
    // Every entry of the glob, not only files: a FIFO or directory of that name is refused.
    for (const QString& f :
         QDir(dir).entryList({glob}, QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)) {
        const int rank = rankOfName(dir, f);
        try {
            out.insert(rank, readStream(QDir(dir).filePath(f), rank));
        } catch (const files::FileError& e) {
            throw std::runtime_error(e.what());
        }
    }
    return out;
}

} // namespace commprof::determinism
