// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `commprof run` shows on stderr. On a terminal: a line per running cell (ranks,
// iteration k/N, last step time, time left to the cell's deadline) under the finished cells'
// lines, and an overall bar (done, failed and skipped out of the total, with an ETA from the
// cells measured so far), redrawn in place. Elsewhere: one plain line per cell state, as a log
// wants it, with no control characters. `ProgressLine` is the one-line counter of ingest and
// report.

#include <QElapsedTimer>
#include <QMap>
#include <QString>

#include <cstdio>
#include <vector>

namespace commprof::cli {

// Whether `stream` is a terminal that understands cursor movement (not TERM=dumb).
bool isLiveTerminal(std::FILE* stream);

class RunProgressView {
public:
    struct CellPlan {
        QString id;
        int worldSize = 1;
        int iterations = 1;
        double timeoutS = 0;
    };
    RunProgressView(std::FILE* out, bool live, std::vector<CellPlan> cells);
    // state: the runner's state name ("running", "complete", "failed", "stopped", "skipped",
    // ...).
    void cellState(const QString& id, const QString& state, const QString& detail);
    void iteration(const QString& id, int rank, int iter, int of, double stepMs);
    // A line for the scroll-back (the run's own messages, a scheduler's state of a cell).
    void note(const QString& line);
    // The final bar (100 % when every cell ended), and the cursor left below it.
    void finish();

private:
    struct Running {
        qint64 startMs = 0;
        QMap<int, int> itersByRank;
        int of = 1;
        double lastStepMs = 0;
    };
    void draw(bool force);
    void clearLive();
    QString cellLine(const QString& id, const Running& r) const;
    QString overallLine() const;
    double fractionDone() const;
    const CellPlan* planOf(const QString& id) const;

    std::FILE* out_;
    bool live_;
    std::vector<CellPlan> cells_;
    QMap<QString, Running> running_;
    int done_ = 0, failed_ = 0, stopped_ = 0, skipped_ = 0;
    double measuredMs_ = 0; // wall time of the cells that ran to an end
    int measured_ = 0;
    QElapsedTimer clock_;
    qint64 lastDrawMs_ = -1000;
    int liveLines_ = 0;
    bool finished_ = false;
};

// "what 12/500 name": a line redrawn in place on a terminal, else a plain line each.
class ProgressLine {
public:
    ProgressLine(std::FILE* out, bool live, QString what);
    void update(int done, int total, const QString& name);
    void finish();

private:
    std::FILE* out_;
    bool live_;
    QString what_;
    bool open_ = false;
};

} // namespace commprof::cli
