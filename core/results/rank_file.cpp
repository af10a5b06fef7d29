// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_file.h"

#include "files/safe_file.h"
#include "results/json_kind.h"
#include "spec/rank_contract.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cmath>
#include <limits>

namespace commprof::results {
namespace {

// A 1,000-iteration run with a hundred buckets an iteration writes about 15 MB.
constexpr qint64 kDefaultMaxRankFileBytes = 256LL * 1024 * 1024;
constexpr qint64 kMaxWorldSize = 1024;
constexpr qint64 kMaxIteration = 1000000000;
constexpr qint64 kMaxBucketIndex = 1000000;

// Checks one file's fields; the first problem wins.
class Checker {
public:
    explicit Checker(QString name) : name_(std::move(name)) {}
    const QString& problem() const { return problem_; }

    // An integer in [lo, hi] at `field`; missing counts as wrong when required.
    bool integer(const QJsonObject& o, const QString& field, const QString& where, qint64 lo,
                 qint64 hi, qint64* out = nullptr) {
        if (!problem_.isEmpty()) {
            return false;
        }
        const QJsonValue v = o.value(field);
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d) || d < double(lo) || d > double(hi)) {
            return fail(where + field,
                        QString("expected an integer from %1 to %2, found %3")
                            .arg(lo)
                            .arg(hi)
                            .arg(v.isDouble() ? QString::number(d, 'g', 17) : describeJson(v)));
        }
        if (out) {
            *out = qint64(d);
        }
        return true;
    }

    // A number >= 0 at `field` into *out; missing leaves *out.
    bool nonNegative(const QJsonObject& o, const QString& field, const QString& where,
                     double* out = nullptr) {
        if (!problem_.isEmpty() || !o.contains(field)) {
            return problem_.isEmpty();
        }
        const QJsonValue v = o.value(field);
        if (!v.isDouble() || !(v.toDouble() >= 0) || !std::isfinite(v.toDouble())) {
            return fail(where + field, "expected a finite number >= 0, found " + describeJson(v));
        }
        if (out) {
            *out = v.toDouble();
        }
        return true;
    }

    // A string at `field` into *out; missing leaves *out.
    bool string(const QJsonObject& o, const QString& field, const QString& where, QString* out) {
        if (!problem_.isEmpty() || !o.contains(field)) {
            return problem_.isEmpty();
        }
        const QJsonValue v = o.value(field);
        if (!v.isString()) {
            return fail(where + field, "expected a string, found " + describeJson(v));
        }
        *out = v.toString();
        return true;
    }

    // Calls each(element, "field[i].") for every element of the array at `field` (missing:
    // none), stopping at the first problem; an element that is not an object is one.
    template <typename Each>
    void eachObject(const QJsonObject& o, const QString& field, Each each) {
        const QJsonValue v = o.value(field);
        if (problem_.isEmpty() && !v.isUndefined() && !v.isArray()) {
            fail(field, "expected an array, found " + describeJson(v));
        }
        const QJsonArray array = v.toArray();
        for (qsizetype i = 0; i < array.size() && problem_.isEmpty(); ++i) {
            const QString where = QString("%1[%2].").arg(field).arg(i);
            if (!array[i].isObject()) {
                fail(where.chopped(1), "expected an object, found " + describeJson(array[i]));
                return;
            }
            each(array[i].toObject(), where);
        }
    }

    bool fail(const QString& field, const QString& message) {
        if (problem_.isEmpty()) {
            problem_ = QString("%1: %2: %3").arg(name_, field, message);
        }
        return false;
    }

private:
    QString name_;
    QString problem_;
};

void checkRankOfWorld(Checker& c, const QJsonObject& doc) {
    qint64 worldSize = 0;
    qint64 rank = 0;
    c.integer(doc, "world_size", {}, 1, kMaxWorldSize, &worldSize);
    c.integer(doc, "rank", {}, 0, kMaxWorldSize - 1, &rank);
    if (c.problem().isEmpty() && rank >= worldSize) {
        c.fail("rank", QString("rank %1 of a world of %2").arg(rank).arg(worldSize));
    }
}

// sweep_rank{R}.json: per kind, sizes with their timed repetitions.
QString checkSweep(const QJsonObject& doc, const QString& name) {
    Checker c(name);
    checkRankOfWorld(c, doc);
    c.eachObject(doc, "kinds", [&](const QJsonObject& k, const QString& where) {
        if (!k["kind"].isString()) {
            c.fail(where + "kind", "expected a string, found " + describeJson(k["kind"]));
        }
        c.eachObject(k, "sizes", [&](const QJsonObject& size, const QString& at) {
            c.integer(size, "bytes", where + at, 1, std::numeric_limits<qint64>::max() / 2);
            const QJsonValue times = size["times_us"];
            if (c.problem().isEmpty() && !times.isArray()) {
                c.fail(where + at + "times_us", "expected an array, found " + describeJson(times));
            }
            for (const QJsonValue t : times.toArray()) {
                if (c.problem().isEmpty() && !(t.isDouble() && t.toDouble() >= 0)) {
                    c.fail(where + at + "times_us",
                           "expected numbers >= 0, found " + describeJson(t));
                }
            }
        });
    });
    return c.problem();
}

// No phase of an iteration and no bucket lasts longer than the rank's whole run (wall_s): such a
// figure is a disk fault, a bad clock or an edit, never a measurement.
void checkAgainstWallTime(Checker& c, const RankRecord& r) {
    if (!r.wallS || !c.problem().isEmpty()) {
        return;
    }
    const double wallMs = *r.wallS * 1e3;
    const auto longer = [&](const QString& field, double ms) {
        if (ms > wallMs) {
            c.fail(field, QString("%1 ms is longer than the rank's whole run (wall time %2 s): not "
                                  "a measurement")
                              .arg(ms, 0, 'g', 6)
                              .arg(*r.wallS, 0, 'g', 6));
        }
        return c.problem().isEmpty();
    };
    for (std::size_t i = 0; i < r.iterations.size(); ++i) {
        const IterationRecord& it = r.iterations[i];
        const QString where = QString("iterations[%1].").arg(i);
        if (!longer(where + "forward_ms", it.forwardMs) ||
            !longer(where + "backward_ms", it.backwardMs) ||
            !longer(where + "optimizer_ms", it.optimizerMs) ||
            !longer(where + "step_ms", it.stepMs)) {
            return;
        }
    }
    for (std::size_t i = 0; i < r.buckets.size(); ++i) {
        const BucketRecord& b = r.buckets[i];
        if (!longer(QString("buckets[%1].end_ns").arg(i), (b.endNs - b.startNs) / 1e6)) {
            return;
        }
    }
}

QString check(const QJsonObject& doc, const QString& name, RankRecord* r) {
    Checker c(name);
    checkRankOfWorld(c, doc);
    r->rank = doc["rank"].toInt();
    r->worldSize = doc["world_size"].toInt();
    c.string(doc, "backend", {}, &r->backend);
    if (doc.contains("record_from_iteration")) {
        qint64 from = 0;
        c.integer(doc, "record_from_iteration", {}, 0, kMaxIteration, &from);
        r->recordFromIteration = int(from);
    }
    r->torchVersion = doc["torch_version"].toString();
    r->modelSignature = doc["model"].toObject()["signature"].toString();
    r->paramChecksum = doc["param_checksum"].toDouble();
    r->gradChecksumsAgree = doc["grad_checksums_agree"].toBool();
    c.nonNegative(doc, "peak_host_bytes", {}, &r->peakHostBytes);
    c.nonNegative(doc, "peak_device_bytes", {}, &r->peakDeviceBytes);
    if (doc["config"].toObject().contains("threads")) {
        qint64 threads = 0;
        c.integer(doc["config"].toObject(), "threads", "config.", 0, 1 << 20, &threads);
        r->threads = std::max<qint64>(1, threads);
    }
    if (doc.contains("wall_s")) {
        double wall = 0;
        c.nonNegative(doc, "wall_s", {}, &wall);
        r->wallS = wall;
    }
    const QJsonObject powersgd = doc["config"].toObject()["powersgd"].toObject();
    if (powersgd.contains("matrix_approximation_rank")) {
        qint64 rank = 1;
        c.integer(powersgd, "matrix_approximation_rank", "config.powersgd.", 1, 1 << 20, &rank);
        r->powersgdRank = int(rank);
    }
    c.eachObject(doc, "parameters", [&](const QJsonObject& p, const QString& where) {
        ParameterRecord& param = r->parameters.emplace_back();
        c.string(p, "name", where, &param.name);
        c.nonNegative(p, "bytes", where, &param.bytes);
        const QJsonValue shape = p["shape"];
        if (c.problem().isEmpty() && !shape.isUndefined() && !shape.isArray()) {
            c.fail(where + "shape", "expected an array, found " + describeJson(shape));
        }
        for (const QJsonValue d : shape.toArray()) {
            if (c.problem().isEmpty() && !(d.isDouble() && d.toDouble() >= 0)) {
                c.fail(where + "shape", "expected numbers >= 0, found " + describeJson(d));
            }
            param.shape.push_back(d.toDouble());
        }
    });
    QSet<qint64> iterations;
    c.eachObject(doc, "iterations", [&](const QJsonObject& it, const QString& where) {
        qint64 iter = 0;
        if (c.integer(it, "iter", where, 0, kMaxIteration, &iter) && iterations.contains(iter)) {
            c.fail(where + "iter", QString("iteration %1 is listed twice").arg(iter));
        }
        iterations.insert(iter);
        IterationRecord& row = r->iterations.emplace_back();
        row.iter = int(iter);
        c.nonNegative(it, "forward_ms", where, &row.forwardMs);
        c.nonNegative(it, "backward_ms", where, &row.backwardMs);
        c.nonNegative(it, "optimizer_ms", where, &row.optimizerMs);
        c.nonNegative(it, "step_ms", where, &row.stepMs);
    });
    QSet<QPair<qint64, qint64>> buckets;
    c.eachObject(doc, "buckets", [&](const QJsonObject& b, const QString& where) {
        qint64 iter = 0;
        qint64 index = 0;
        c.integer(b, "iter", where, 0, kMaxIteration, &iter);
        if (c.integer(b, "index", where, 0, kMaxBucketIndex, &index) &&
            buckets.contains({iter, index})) {
            c.fail(where + "index",
                   QString("bucket %1 of iteration %2 is listed twice").arg(index).arg(iter));
        }
        buckets.insert({iter, index});
        qint64 v[4] = {};
        const char* names[4] = {"bytes", "nparams", "start_ns", "end_ns"};
        for (int i = 0; i < 4; ++i) {
            c.integer(b, names[i], where, 0, std::numeric_limits<qint64>::max() / 2, &v[i]);
        }
        BucketRecord& row = r->buckets.emplace_back();
        row.iter = int(iter);
        row.index = int(index);
        // As the file writes them: doubles, so a time is exactly what a reader of the JSON gets.
        row.bytes = b["bytes"].toDouble();
        row.nparams = int(v[1]);
        row.startNs = b["start_ns"].toDouble();
        row.endNs = b["end_ns"].toDouble();
        if (b.contains("wire_bytes")) {
            double wire = 0;
            c.nonNegative(b, "wire_bytes", where, &wire);
            row.wireBytes = wire;
        }
    });
    checkAgainstWallTime(c, *r);
    return c.problem();
}

} // namespace

qint64 maxRankFileBytes() {
    return files::limitFromEnv("COMMPROF_MAX_RANK_FILE_BYTES", kDefaultMaxRankFileBytes);
}

RankFile readRankFile(const QString& path) {
    try {
        return parseRankFile(files::readRegularFile(path, maxRankFileBytes(), files::Links::Refuse,
                                                    "raise it with COMMPROF_MAX_RANK_FILE_BYTES=N"),
                             QFileInfo(path).fileName());
    } catch (const files::FileError& e) {
        return {{}, {}, QFileInfo(path).fileName() + ": " + e.detail};
    }
}

RankFile parseRankFile(const QByteArray& bytes, const QString& name) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        return {
            {},
            {},
            QString("%1 unparseable: %2 at byte %3").arg(name, err.errorString()).arg(err.offset)};
    }
    if (!doc.isObject()) {
        return {{},
                {},
                QString("%1: expected a JSON object, found %2")
                    .arg(name, doc.isArray() ? QString("an array") : QString("no value"))};
    }
    RankFile out{doc.object(), {}, {}};
    out.problem = name.startsWith(spec::files::kSweep.prefix) ? checkSweep(out.doc, name)
                                                              : check(out.doc, name, &out.record);
    if (!out.ok()) {
        out.doc = {};
        out.record = {};
    }
    return out;
}

} // namespace commprof::results
