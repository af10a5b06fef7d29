// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_file.h"

#include "files/safe_file.h"
#include "results/json_kind.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <concepts>
#include <set>
#include <type_traits>
#include <variant>

namespace commprof::results {
namespace {

// A 1,000-iteration run with a hundred buckets an iteration writes about 15 MB.
constexpr qint64 kDefaultMaxRankFileBytes = 256LL * 1024 * 1024;

// A whole number in [lo, hi] that a 64-bit integer holds.
bool wholeIn(double d, std::int64_t lo, std::int64_t hi) {
    return std::isfinite(d) && d == std::floor(d) && d >= double(lo) && d <= double(hi) &&
           std::abs(d) < 9.0e18;
}

// Checks one file's fields as their table declares them; the first problem wins.
class Checker {
public:
    explicit Checker(QString name) : name_(std::move(name)) {}
    const QString& problem() const { return problem_; }
    bool ok() const { return problem_.isEmpty(); }

    // Every field of `table` from `doc` (a field in a nested object from that object) into *out.
    template <typename R>
    void fields(const QJsonObject& doc, const std::vector<Field<R>>& table, const QString& where,
                R* out) {
        for (const Field<R>& f : table) {
            if (!ok()) {
                return;
            }
            QJsonObject o = doc;
            QString at = where;
            if (*f.in != '\0') { // most fields: no nested object to find
                for (const QString& part : QString::fromLatin1(f.in).split('.')) {
                    o = o.value(part).toObject();
                    at += part + '.';
                }
            }
            std::visit([&](auto member) { read(o, f, at, out->*member); }, f.member);
        }
    }

    // Calls each(element, "field[i].") for every element of the array at `field` (missing:
    // none), stopping at the first problem; an element that is not an object is one.
    template <typename Each>
    void eachObject(const QJsonObject& o, const QString& field, const QString& where, Each each) {
        const QJsonValue v = o.value(field);
        if (ok() && !v.isUndefined() && !v.isArray()) {
            fail(where + field, "expected an array, found " + describeJson(v));
        }
        const QJsonArray array = v.toArray();
        for (qsizetype i = 0; i < array.size() && ok(); ++i) {
            const QString at = QString("%1%2[%3].").arg(where, field).arg(i);
            if (!array[i].isObject()) {
                fail(at.chopped(1), "expected an object, found " + describeJson(array[i]));
                return;
            }
            each(array[i].toObject(), at);
        }
    }

    bool fail(const QString& field, const QString& message) {
        if (ok()) {
            problem_ = QString("%1: %2: %3").arg(name_, field, message);
        }
        return false;
    }

private:
    // Whether to take the value: false when it is missing and may be, or is not of its type
    // and need not be (a problem is recorded where it must be).
    template <typename R>
    bool present(const QJsonValue& v, const Field<R>& f, const QString& at, bool ofType,
                 const QString& expected) {
        if (ofType) {
            return true;
        }
        if (f.need == Need::Required || (f.need == Need::Optional && !v.isUndefined())) {
            fail(at + f.key, expected);
        }
        return false;
    }

    template <typename R> bool numberOk(const Field<R>& f, double d) const {
        return std::isfinite(d) && d >= double(f.min) && (f.max == kNoLimit || d <= double(f.max));
    }

    // int and std::int64_t (bool, more specialised, has its own).
    template <typename R, std::integral T>
    void read(const QJsonObject& o, const Field<R>& f, const QString& at, T& out) {
        const QJsonValue v = o.value(f.key);
        const QString expected =
            QString("expected an integer from %1 to %2, found %3")
                .arg(f.min)
                .arg(f.max)
                .arg(v.isDouble() ? QString::number(v.toDouble(), 'g', 17) : describeJson(v));
        if (present(v, f, at, v.isDouble() && wholeIn(v.toDouble(), f.min, f.max), expected)) {
            out = T(v.toDouble());
        }
    }
    template <typename R>
    void read(const QJsonObject& o, const Field<R>& f, const QString& at, double& out) {
        const QJsonValue v = o.value(f.key);
        const bool ofType =
            v.isDouble() && (f.need == Need::AsWritten || numberOk(f, v.toDouble()));
        const QString expected =
            (f.max == kNoLimit
                 ? QString("expected a finite number >= %1, found %2").arg(f.min)
                 : QString("expected a number from %1 to %2, found %3").arg(f.min).arg(f.max))
                .arg(describeJson(v));
        if (present(v, f, at, ofType, expected)) {
            out = v.toDouble();
        }
    }
    // An optional number: taken only where present and, for an integer, whole and in bounds.
    template <typename R, typename T>
    void read(const QJsonObject& o, const Field<R>& f, const QString& at, std::optional<T>& out) {
        if (o.contains(f.key) || f.need == Need::Required) {
            T value = 0;
            read(o, f, at, value);
            const QJsonValue v = o.value(f.key);
            if (ok() && v.isDouble() &&
                (std::is_floating_point_v<T> || wholeIn(v.toDouble(), f.min, f.max))) {
                out = value;
            }
        }
    }
    template <typename R>
    void read(const QJsonObject& o, const Field<R>& f, const QString& at, bool& out) {
        const QJsonValue v = o.value(f.key);
        if (present(v, f, at, v.isBool(), "expected true or false, found " + describeJson(v))) {
            out = v.toBool();
        }
    }
    template <typename R>
    void read(const QJsonObject& o, const Field<R>& f, const QString& at, std::string& out) {
        const QJsonValue v = o.value(f.key);
        if (present(v, f, at, v.isString(), "expected a string, found " + describeJson(v))) {
            out = v.toString().toStdString();
        }
    }
    template <typename R, typename T>
    void read(const QJsonObject& o, const Field<R>& f, const QString& at, std::vector<T>& out) {
        const QJsonValue v = o.value(f.key);
        if (!present(v, f, at, v.isArray(), "expected an array, found " + describeJson(v))) {
            return;
        }
        out.clear();
        for (const QJsonValue e : v.toArray()) {
            const double d = e.toDouble();
            const bool fits = e.isDouble() && numberOk(f, d) &&
                              (std::is_floating_point_v<T> || wholeIn(d, f.min, f.max));
            if (fits) {
                out.push_back(T(d));
            } else if (f.need != Need::AsWritten) {
                fail(at + f.key,
                     QString("expected numbers >= %1, found %2").arg(f.min).arg(describeJson(e)));
                return;
            }
        }
    }

    QString name_;
    QString problem_;
};

// rank < world size, once both are read.
void checkRankOfWorld(Checker& c, int rank, int worldSize) {
    if (c.ok() && rank >= worldSize) {
        c.fail("rank", QString("rank %1 of a world of %2").arg(rank).arg(worldSize));
    }
}

// sweep_rank{R}.json: per kind, sizes with their timed repetitions.
QString checkSweep(const QJsonObject& doc, const QString& name, SweepRecord* r) {
    Checker c(name);
    c.fields(doc, sweepHeaderFields(), {}, static_cast<SweepHeader*>(r));
    checkRankOfWorld(c, r->rank, r->worldSize);
    c.eachObject(doc, rank_keys::kKinds, {}, [&](const QJsonObject& k, const QString& where) {
        SweepKindRecord& kind = r->kinds.emplace_back();
        c.fields(k, sweepKindFields(), where, &kind);
        c.eachObject(k, rank_keys::kSizes, where, [&](const QJsonObject& size, const QString& at) {
            c.fields(size, sweepSizeFields(), at, &kind.sizes.emplace_back());
        });
    });
    return c.problem();
}

// No phase of an iteration and no bucket lasts longer than the rank's whole run (wall_s): such a
// figure is a disk fault, a bad clock or an edit, never a measurement.
void checkAgainstWallTime(Checker& c, const RankRecord& r) {
    if (!r.wallS || !c.ok()) {
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
        return c.ok();
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
        if (!longer(QString("buckets[%1].end_ns").arg(i), double(b.endNs - b.startNs) / 1e6)) {
            return;
        }
    }
}

// An array of arrays of parameter indices ("initial_buckets"), as written; not checked.
std::vector<std::vector<std::int64_t>> indexLists(const QJsonValue& v) {
    return spec::mapped<std::vector<std::vector<std::int64_t>>>(
        v.toArray(), [](const QJsonValue& b) {
            return spec::mapped<std::vector<std::int64_t>>(
                b.toArray(), [](const QJsonValue& i) { return i.toInteger(); });
        });
}

// Iterations and buckets: each listed once.
void checkUnique(Checker& c, const RankRecord& r) {
    std::set<int> iterations;
    for (std::size_t i = 0; i < r.iterations.size() && c.ok(); ++i) {
        if (!iterations.insert(r.iterations[i].iter).second) {
            c.fail(QString("iterations[%1].iter").arg(i),
                   QString("iteration %1 is listed twice").arg(r.iterations[i].iter));
        }
    }
    std::set<std::pair<int, int>> buckets;
    for (std::size_t i = 0; i < r.buckets.size() && c.ok(); ++i) {
        const BucketRecord& b = r.buckets[i];
        if (!buckets.insert({b.iter, b.index}).second) {
            c.fail(QString("buckets[%1].index").arg(i),
                   QString("bucket %1 of iteration %2 is listed twice").arg(b.index).arg(b.iter));
        }
    }
}

QString check(const QJsonObject& doc, const QString& name, RankRecord* r) {
    Checker c(name);
    c.fields(doc, rankHeaderFields(), {}, static_cast<RankHeader*>(r));
    checkRankOfWorld(c, r->rank, r->worldSize);
    c.eachObject(doc, rank_keys::kParameters, {}, [&](const QJsonObject& p, const QString& at) {
        c.fields(p, parameterFields(), at, &r->parameters.emplace_back());
    });
    r->initialBuckets = indexLists(doc[rank_keys::kInitialBuckets]);
    r->finalBuckets = indexLists(doc[rank_keys::kFinalBuckets]);
    c.eachObject(doc, rank_keys::kIterations, {}, [&](const QJsonObject& it, const QString& at) {
        c.fields(it, iterationFields(), at, &r->iterations.emplace_back());
    });
    c.eachObject(doc, rank_keys::kBuckets, {}, [&](const QJsonObject& b, const QString& at) {
        c.fields(b, bucketFields(), at, &r->buckets.emplace_back());
    });
    checkUnique(c, *r);
    const QJsonValue log = doc[rank_keys::kDdpLogging];
    if (log.isObject()) {
        DdpLoggingRecord& d = r->ddpLogging;
        d.present = true;
        c.fields(log.toObject(), ddpLoggingFields(), "ddp_logging.", &d);
        c.eachObject(log.toObject(), rank_keys::kSamples, "ddp_logging.",
                     [&](const QJsonObject& s, const QString& at) {
                         c.fields(s, ddpSampleFields(), at, &d.samples.emplace_back());
                     });
    }
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
        RankFile out;
        out.problem = QFileInfo(path).fileName() + ": " + e.detail;
        return out;
    }
}

RankFile parseRankFile(const QByteArray& bytes, const QString& name) {
    RankFile out;
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        out.problem =
            QString("%1 unparseable: %2 at byte %3").arg(name, err.errorString()).arg(err.offset);
        return out;
    }
    if (!doc.isObject()) {
        out.problem = QString("%1: expected a JSON object, found %2")
                          .arg(name, doc.isArray() ? QString("an array") : QString("no value"));
        return out;
    }
    out.isSweep = name.startsWith(spec::files::kSweep.prefix);
    out.problem = out.isSweep ? checkSweep(doc.object(), name, &out.sweep)
                              : check(doc.object(), name, &out.record);
    if (!out.ok()) {
        out.record = {};
        out.sweep = {};
    }
    return out;
}

} // namespace commprof::results
