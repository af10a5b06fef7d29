// SPDX-License-Identifier: GPL-3.0-or-later
#include "fingerprint_stream.h"

#include "spec/rank_contract.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <stdexcept>

namespace commprof::determinism {
namespace {

QString shapes(const QJsonArray& tensors) {
    QStringList parts;
    for (const QJsonValue v : tensors) {
        const QJsonObject t = v.toObject();
        QStringList dims;
        for (const QJsonValue d : t["shape"].toArray()) {
            dims << QString::number(d.toInteger());
        }
        parts << t["dtype"].toString() + "[" + dims.join(",") + "]";
    }
    return parts.join(" ");
}

} // namespace

QString FpRecord::signature() const {
    return shapes(inputs) + " -> " + shapes(outputs);
}

QMap<int, FpStream> loadFingerprints(const QString& dir) {
    QMap<int, FpStream> out;
    static const QRegularExpression name("^fp_rank(\\d+)\\.jsonl$");
    for (const QString& f : QDir(dir).entryList({QString::fromStdString(spec::files::kFingerprint.glob())}, QDir::Files)) {
        const auto m = name.match(f);
        if (!m.hasMatch()) {
            continue;
        }
        FpStream s;
        s.rank = m.captured(1).toInt();
        s.path = QDir(dir).filePath(f);
        QFile file(s.path);
        if (!file.open(QIODevice::ReadOnly)) {
            throw std::runtime_error((s.path + ": cannot read").toStdString());
        }
        int lineNo = 0;
        while (!file.atEnd()) {
            const QByteArray line = file.readLine().trimmed();
            ++lineNo;
            if (line.isEmpty()) {
                continue;
            }
            QJsonParseError err;
            const QJsonObject o = QJsonDocument::fromJson(line, &err).object();
            if (err.error != QJsonParseError::NoError) {
                throw std::runtime_error(QString("%1:%2: not a JSON record: %3")
                                             .arg(s.path)
                                             .arg(lineNo)
                                             .arg(err.errorString())
                                             .toStdString());
            }
            if (o.contains("header")) {
                s.worldSize = o["world_size"].toInt();
                continue;
            }
            if (o["truncated"].toBool()) {
                s.truncated = true;
                continue;
            }
            FpRecord r;
            r.seq = o["seq"].toInteger();
            r.iteration = o["iter"].toInt();
            r.layer = o["layer"].toString();
            r.id = o["id"].toString();
            r.name = o["name"].toString();
            r.collective = o["collective"].toBool();
            r.artifact = o["artifact"].toString();
            r.inputs = o["inputs"].toArray();
            r.outputs = o["outputs"].toArray();
            s.byKey.insert(r.key(), int(s.records.size()));
            s.records.push_back(r);
        }
        std::sort(s.records.begin(), s.records.end(),
                  [](const FpRecord& a, const FpRecord& b) { return a.seq < b.seq; });
        s.byKey.clear();
        for (int i = 0; i < int(s.records.size()); ++i) {
            s.byKey.insert(s.records[std::size_t(i)].key(), i);
        }
        out.insert(s.rank, s);
    }
    return out;
}

} // namespace commprof::determinism
