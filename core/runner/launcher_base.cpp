// SPDX-License-Identifier: GPL-3.0-or-later
#include "launcher_base.h"

#include "spec/rank_contract.h"

#include <QJsonDocument>

#include <algorithm>

namespace commprof::runner {
namespace {

constexpr qsizetype kTailBytes = qsizetype(spec::kStderrTailBytes);
constexpr qsizetype kMaxLine = qsizetype(spec::progress::kMaxLineBytes);

} // namespace

void LineSplitter::feed(const QByteArray& bytes,
                        const std::function<void(const QByteArray&)>& onLine) {
    partial_ += bytes;
    qsizetype from = 0;
    qsizetype nl;
    while ((nl = partial_.indexOf('\n', from)) >= 0) {
        onLine(partial_.mid(from, nl - from));
        from = nl + 1;
    }
    partial_.remove(0, from);
    if (partial_.size() > kMaxLine) {
        partial_.clear(); // not a line anyone reads
    }
}

QByteArray LineSplitter::takeRest() {
    return std::exchange(partial_, {});
}

void StderrTail::append(const QByteArray& bytes) {
    bytes_ += bytes;
    // Trimmed only now and then: a rank that writes a lot costs a copy per 12 kB, not per line.
    if (bytes_.size() > 4 * kTailBytes) {
        bytes_ = bytes_.right(kTailBytes);
    }
}

QString StderrTail::text() const {
    return tailText(bytes_);
}

QString tailText(const QByteArray& bytes) {
    return QString::fromUtf8(bytes.right(kTailBytes)).trimmed();
}

QJsonObject progressEvent(const QByteArray& line) {
    const QByteArray text = line.trimmed();
    return text.startsWith('{') ? QJsonDocument::fromJson(text).object() : QJsonObject{};
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

bool retryOnAnotherPort(const PoolOutcome& o, const QDeadlineTimer& deadline, int maxRetries) {
    return !o.success && portClash(o.ranks) && !o.timedOut && !o.stopped &&
           !deadline.hasExpired() && o.attempts <= maxRetries;
}

} // namespace commprof::runner
