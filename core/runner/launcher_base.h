// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every launcher does with the ranks it starts, whether they are local processes
// (RankPool) or the tasks of a Slurm step (SlurmLauncher): it splits their output into lines,
// reads the progress lines among them, keeps the tail of each rank's stderr, reports how each
// rank ended, and decides by one policy whether a failed attempt was a port clash worth another
// port. The rank's side of these is spec/rank_contract.h.

#include <QByteArray>
#include <QDeadlineTimer>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <functional>
#include <vector>

namespace commprof::runner {

struct RankExit {
    int rank = 0;
    int exitCode = -1;
    bool crashed = false; // ended by a signal
    QString stderrTail;
    // Why the fork server's client exec'd this rank instead of having it forked (its notice,
    // spec/fork_contract.h); empty for a forked rank and for one a launcher exec'd itself.
    QString execNotice;
};

struct PoolOutcome {
    bool success = false;
    bool timedOut = false;
    bool stopped = false; // ended on request
    int port = 0;
    int attempts = 0;
    std::vector<RankExit> ranks;
    QString reason;       // empty on success
    QJsonObject launcher; // how the cell ran (kind; Slurm job and step ids, state, reason)
    QString launcherLog;  // the launcher's own lines for launcher.log
};

// The outcome of a cell none of whose ranks was started, for REASON.
PoolOutcome notStarted(int worldSize, const QString& reason);

// Attempts after the first, on another port, when a rendezvous port was taken.
inline constexpr int kMaxPortRetries = 3;

// Bytes as they arrive, handed on line by line (without the newline). A line longer than a
// progress line may be is dropped whole, up to its newline: it is not one, must not grow
// without bound, and its tail must not pass for a line of its own.
class LineSplitter {
public:
    void feed(const QByteArray& bytes, const std::function<void(const QByteArray&)>& onLine);
    QByteArray takeRest(); // what followed the last newline, once the stream has ended

private:
    QByteArray partial_;
    bool dropping_ = false; // inside a line that was too long, until its newline
};

// The end of one rank's stderr, bounded however much it writes.
class StderrTail {
public:
    void append(const QByteArray& bytes);
    QString text() const; // the last spec::kStderrTailBytes, trimmed
    // The first line, kept however much follows it (a notice the tail may have lost).
    QString firstLine() const;

private:
    QByteArray bytes_;
    QByteArray head_; // up to the first newline, at most kStderrTailBytes
};

// The last spec::kStderrTailBytes of BYTES as text, trimmed.
QString tailText(const QByteArray& bytes);

// The event of a progress line (spec::progress) of rank RANK, or an empty object when the line
// is not one: a known event whose rank is RANK and whose fields are finite numbers in range.
// Only the event's own fields are kept, so a rank cannot speak for the run (or another rank).
QJsonObject progressEvent(const QByteArray& line, int rank);

// "exited with code 1" or "was killed by a signal", as the reason of a failed cell says it.
QString rankEnd(const RankExit& rank);

// A port clash: rank 0, the only rank that binds the rendezvous port (it serves the store the
// others connect to), ended with exit_code::kRendezvous saying the port was in use. Another
// rank saying "already in use" did not bind the port, so a new one would not help it.
bool portClash(const std::vector<RankExit>& ranks);
// Whether a finished attempt is tried again on another port: it failed by a port clash, was
// neither stopped nor out of time, and the retries are not used up.
bool retryOnAnotherPort(const PoolOutcome& outcome, const QDeadlineTimer& deadline);

} // namespace commprof::runner

Q_DECLARE_METATYPE(commprof::runner::PoolOutcome)
