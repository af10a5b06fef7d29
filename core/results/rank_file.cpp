// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_file.h"

#include "files/safe_file.h"
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

QString kindOf(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Null:
        return "null";
    case QJsonValue::Bool:
        return "a boolean";
    case QJsonValue::Double:
        return "a number";
    case QJsonValue::String:
        return "a string";
    case QJsonValue::Array:
        return "an array";
    case QJsonValue::Object:
        return "an object";
    case QJsonValue::Undefined:
        break;
    }
    return "nothing";
}

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
                            .arg(v.isDouble() ? QString::number(d, 'g', 17) : kindOf(v)));
        }
        if (out) {
            *out = qint64(d);
        }
        return true;
    }

    bool nonNegative(const QJsonObject& o, const QString& field, const QString& where) {
        if (!problem_.isEmpty() || !o.contains(field)) {
            return problem_.isEmpty();
        }
        const QJsonValue v = o.value(field);
        if (!v.isDouble() || !(v.toDouble() >= 0)) {
            return fail(where + field, "expected a number >= 0, found " + kindOf(v));
        }
        return true;
    }

    // Calls each(element, "field[i].") for every element of the array at `field` (missing:
    // none), stopping at the first problem; an element that is not an object is one.
    template <typename Each>
    void eachObject(const QJsonObject& o, const QString& field, Each each) {
        const QJsonValue v = o.value(field);
        if (problem_.isEmpty() && !v.isUndefined() && !v.isArray()) {
            fail(field, "expected an array, found " + kindOf(v));
        }
        const QJsonArray array = v.toArray();
        for (qsizetype i = 0; i < array.size() && problem_.isEmpty(); ++i) {
            const QString where = QString("%1[%2].").arg(field).arg(i);
            if (!array[i].isObject()) {
                fail(where.chopped(1), "expected an object, found " + kindOf(array[i]));
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
            c.fail(where + "kind", "expected a string, found " + kindOf(k["kind"]));
        }
        c.eachObject(k, "sizes", [&](const QJsonObject& size, const QString& at) {
            c.integer(size, "bytes", where + at, 1, std::numeric_limits<qint64>::max() / 2);
            const QJsonValue times = size["times_us"];
            if (c.problem().isEmpty() && !times.isArray()) {
                c.fail(where + at + "times_us", "expected an array, found " + kindOf(times));
            }
            for (const QJsonValue t : times.toArray()) {
                if (c.problem().isEmpty() && !(t.isDouble() && t.toDouble() >= 0)) {
                    c.fail(where + at + "times_us", "expected numbers >= 0, found " + kindOf(t));
                }
            }
        });
    });
    return c.problem();
}

QString check(const QJsonObject& doc, const QString& name) {
    Checker c(name);
    checkRankOfWorld(c, doc);
    if (doc.contains("record_from_iteration")) {
        c.integer(doc, "record_from_iteration", {}, 0, kMaxIteration);
    }
    for (const char* field : {"peak_host_bytes", "peak_device_bytes"}) {
        c.nonNegative(doc, field, {});
    }
    QSet<qint64> iterations;
    c.eachObject(doc, "iterations", [&](const QJsonObject& it, const QString& where) {
        qint64 iter = 0;
        if (c.integer(it, "iter", where, 0, kMaxIteration, &iter) && iterations.contains(iter)) {
            c.fail(where + "iter", QString("iteration %1 is listed twice").arg(iter));
        }
        iterations.insert(iter);
        for (const char* t : {"forward_ms", "backward_ms", "optimizer_ms", "step_ms"}) {
            c.nonNegative(it, t, where);
        }
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
        for (const char* n : {"bytes", "nparams", "start_ns", "end_ns"}) {
            c.integer(b, n, where, 0, std::numeric_limits<qint64>::max() / 2);
        }
    });
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
        return {{}, QFileInfo(path).fileName() + ": " + e.detail};
    }
}

RankFile parseRankFile(const QByteArray& bytes, const QString& name) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        return {
            {},
            QString("%1 unparseable: %2 at byte %3").arg(name, err.errorString()).arg(err.offset)};
    }
    if (!doc.isObject()) {
        return {{},
                QString("%1: expected a JSON object, found %2")
                    .arg(name, doc.isArray() ? QString("an array") : QString("no value"))};
    }
    RankFile out{doc.object(), {}};
    out.problem = name.startsWith(spec::files::kSweep.prefix) ? checkSweep(out.doc, name)
                                                              : check(out.doc, name);
    if (!out.ok()) {
        out.doc = {};
    }
    return out;
}

} // namespace commprof::results
