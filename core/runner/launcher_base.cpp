// SPDX-License-Identifier: GPL-3.0-or-later
#include "launcher_base.h"

#include "spec/rank_contract.h"

#include <QJsonDocument>

#include <cmath>
#include <utility>

namespace commprof::runner {
namespace {

constexpr qsizetype kTailBytes = qsizetype(spec::kStderrTailBytes);
constexpr qsizetype kMaxLine = qsizetype(spec::progress::kMaxLineBytes);

bool finiteIn(const QJsonValue& v, double lo, double hi) {
    const double d = v.toDouble(std::nan(""));
    return v.isDouble() && std::isfinite(d) && d >= lo && d <= hi;
}

// A whole number in [lo, hi] (JSON numbers are doubles).
bool wholeIn(const QJsonValue& v, double lo, double hi) {
    return finiteIn(v, lo, hi) && std::floor(v.toDouble()) == v.toDouble();
}

constexpr double kMaxInt = 2147483647.0;
constexpr double kMaxMs = 1e9;     // eleven days: no step or bucket takes longer
constexpr double kMaxBytes = 1e15; // a petabyte: no gradient bucket or message is larger

// The fields of EVENT that its kind has, each in range; empty when one is missing or not.
QJsonObject checkedFields(const QJsonObject& event, int rank) {
    namespace P = spec::progress;
    const QString kind = event[P::kEvent].toString();
    if (!wholeIn(event[P::kRank], rank, rank)) {
        return {};
    }
    QJsonObject out{{P::kEvent, kind}, {P::kRank, rank}};
    const auto take = [&](const char* key, bool ok) {
        out[key] = event[key];
        return ok;
    };
    bool ok = false;
    if (kind == P::kIteration) {
        ok = take(P::kOf, wholeIn(event[P::kOf], 1, kMaxInt)) &&
             take(P::kIter, wholeIn(event[P::kIter], 0, event[P::kOf].toDouble() - 1)) &&
             take(P::kStepMs, finiteIn(event[P::kStepMs], 0, kMaxMs));
        // A loss that diverged is written as null by the rank: the event stays, without it.
        if (finiteIn(event[P::kLoss], -1e300, 1e300)) {
            out[P::kLoss] = event[P::kLoss];
        }
    } else if (kind == P::kBucket) {
        ok = take(P::kIter, wholeIn(event[P::kIter], 0, kMaxInt)) &&
             take(P::kIndex, wholeIn(event[P::kIndex], 0, kMaxInt)) &&
             take(P::kBytes, wholeIn(event[P::kBytes], 0, kMaxBytes)) &&
             take(P::kMs, finiteIn(event[P::kMs], 0, kMaxMs));
    } else if (kind == P::kSweep) {
        ok =
            take(P::kKind, event[P::kKind].isString() && event[P::kKind].toString().size() <= 64) &&
            take(P::kBytes, wholeIn(event[P::kBytes], 0, kMaxBytes));
    }
    return ok ? out : QJsonObject{};
}

} // namespace

void LineSplitter::feed(const QByteArray& bytes,
                        const std::function<void(const QByteArray&)>& onLine) {
    qsizetype from = 0;
    qsizetype nl;
    while ((nl = bytes.indexOf('\n', from)) >= 0) {
        if (!dropping_ && partial_.size() + (nl - from) <= kMaxLine) {
            onLine(partial_ + bytes.mid(from, nl - from));
        }
        partial_.clear();
        dropping_ = false;
        from = nl + 1;
    }
    if (!dropping_) {
        partial_ += bytes.mid(from);
        if (partial_.size() > kMaxLine) {
            partial_.clear(); // not a line anyone reads, up to its newline
            dropping_ = true;
        }
    }
}

QByteArray LineSplitter::takeRest() {
    dropping_ = false;
    return std::exchange(partial_, {});
}

void StderrTail::append(const QByteArray& bytes) {
    if (!head_.contains('\n') && head_.size() < kTailBytes) {
        head_ += bytes.left(kTailBytes - head_.size());
    }
    bytes_ += bytes;
    // Trimmed only now and then: a rank that writes a lot costs a copy per 12 kB, not per line.
    if (bytes_.size() > 4 * kTailBytes) {
        bytes_ = bytes_.right(kTailBytes);
    }
}

QString StderrTail::text() const {
    return tailText(bytes_);
}

QString StderrTail::firstLine() const {
    return QString::fromUtf8(head_.left(head_.indexOf('\n'))).trimmed();
}

QString tailText(const QByteArray& bytes) {
    return QString::fromUtf8(bytes.right(kTailBytes)).trimmed();
}

QJsonObject progressEvent(const QByteArray& line, int rank) {
    const QByteArray text = line.trimmed();
    return text.startsWith('{') && qsizetype(text.size()) <= kMaxLine
               ? checkedFields(QJsonDocument::fromJson(text).object(), rank)
               : QJsonObject{};
}

PoolOutcome notStarted(int worldSize, const QString& reason) {
    PoolOutcome o;
    o.reason = reason;
    for (int r = 0; r < worldSize; ++r) {
        o.ranks.push_back(RankExit{r, spec::exit_code::kCannotRun, false, "not started", {}});
    }
    return o;
}

QString rankEnd(const RankExit& rank) {
    return rank.crashed ? QString("was killed by a signal")
                        : QString("exited with code %1").arg(rank.exitCode);
}

bool portClash(const std::vector<RankExit>& ranks) {
    return !ranks.empty() && !ranks.front().crashed &&
           ranks.front().exitCode == spec::exit_code::kRendezvous &&
           ranks.front().stderrTail.contains(QLatin1String(spec::kPortInUse));
}

bool retryOnAnotherPort(const PoolOutcome& o, const QDeadlineTimer& deadline) {
    return !o.success && portClash(o.ranks) && !o.timedOut && !o.stopped &&
           !deadline.hasExpired() && o.attempts <= kMaxPortRetries;
}

} // namespace commprof::runner
