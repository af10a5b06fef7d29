// SPDX-License-Identifier: GPL-3.0-or-later
#include "terminal_progress.h"

#include "analysis/number_text.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace commprof::cli {
namespace {

constexpr qint64 kRedrawMs = 100; // iteration events of many ranks need not each repaint
constexpr int kBarWidth = 20;

int terminalWidth(std::FILE* stream) {
    winsize ws{};
    return ::ioctl(::fileno(stream), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 ? ws.ws_col : 80;
}

// A line longer than the terminal wraps and breaks the cursor arithmetic of the redraw.
QString fit(const QString& line, int width) {
    return line.size() < width ? line : line.left(std::max(0, width - 1));
}

QString duration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) {
        return "?";
    }
    const qint64 s = qint64(std::llround(seconds));
    return s >= 3600 ? QString("%1h%2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'))
                     : QString("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}

QString bar(double fraction, int width) {
    const int filled = std::clamp(int(std::floor(fraction * width + 1e-9)), 0, width);
    return "[" + QString(filled, '#') + QString(width - filled, '.') + "]";
}

} // namespace

bool isLiveTerminal(std::FILE* stream) {
    const char* term = std::getenv("TERM");
    return ::isatty(::fileno(stream)) && !(term && std::strcmp(term, "dumb") == 0);
}

RunProgressView::RunProgressView(std::FILE* out, bool live, std::vector<CellPlan> cells)
    : out_(out), live_(live), cells_(std::move(cells)) {
    clock_.start();
}

const RunProgressView::CellPlan* RunProgressView::planOf(const QString& id) const {
    const auto it = std::ranges::find(cells_, id, &CellPlan::id);
    return it == cells_.end() ? nullptr : &*it;
}

void RunProgressView::note(const QString& line) {
    clearLive();
    std::fprintf(out_, "%s\n", qPrintable(line));
    draw(true);
}

void RunProgressView::cellState(const QString& id, const QString& state, const QString& detail) {
    if (state == "running") {
        Running r;
        r.startMs = clock_.elapsed();
        if (const CellPlan* p = planOf(id)) {
            r.of = std::max(1, p->iterations);
        }
        running_[id] = r;
    } else if (state != "pending") {
        if (running_.contains(id)) {
            measuredMs_ += double(clock_.elapsed() - running_[id].startMs);
            ++measured_;
            running_.remove(id);
        }
        ++(state == "complete"  ? done_
           : state == "failed"  ? failed_
           : state == "stopped" ? stopped_
                                : skipped_);
    }
    // The state line stays in the scroll-back; the live lines are drawn again under it. A
    // detail that starts with the state's word ("stopped on request") is not said twice.
    clearLive();
    const QString said = detail.startsWith(state + " ") ? detail : state + " " + detail;
    std::fprintf(out_, "%-34s %s\n", qPrintable(id), qPrintable(said));
    draw(true);
}

void RunProgressView::iteration(const QString& id, int rank, int iter, int of, double stepMs) {
    auto it = running_.find(id);
    if (it == running_.end()) {
        return;
    }
    it->itersByRank[rank] = iter + 1;
    it->of = std::max(1, of);
    it->lastStepMs = stepMs;
    draw(false);
}

double RunProgressView::fractionDone() const {
    if (cells_.empty()) {
        return 1.0;
    }
    double ended = done_ + failed_ + stopped_ + skipped_;
    for (auto it = running_.begin(); it != running_.end(); ++it) {
        const CellPlan* p = planOf(it.key());
        const int ranks = std::max<int>(1, p ? p->worldSize : int(it->itersByRank.size()));
        const int iters = std::accumulate(it->itersByRank.begin(), it->itersByRank.end(), 0);
        ended += std::clamp(double(iters) / (double(it->of) * ranks), 0.0, 1.0);
    }
    return std::clamp(ended / double(cells_.size()), 0.0, 1.0);
}

QString RunProgressView::cellLine(const QString& id, const Running& r) const {
    const CellPlan* p = planOf(id);
    const int ranks = p ? p->worldSize : int(r.itersByRank.size());
    int slowest = r.itersByRank.isEmpty() ? 0 : r.of;
    for (int v : r.itersByRank) {
        slowest = std::min(slowest, v);
    }
    const double elapsedS = double(clock_.elapsed() - r.startMs) / 1000.0;
    QString line = QString("  %1  %2  iter %3/%4")
                       .arg(id, analysis::countText(ranks, "rank"))
                       .arg(slowest)
                       .arg(r.of);
    if (r.lastStepMs > 0) {
        line += QString("  %1 ms/step").arg(r.lastStepMs, 0, 'f', 1);
    }
    if (p && p->timeoutS > 0) {
        line += QString("  %1 to deadline").arg(duration(p->timeoutS - elapsedS));
    }
    return line;
}

QString RunProgressView::overallLine() const {
    const double f = fractionDone();
    const int total = int(cells_.size());
    QString line = QString("%1 %2 %  %3/%4 cells: %5 done, %6 failed, %7 skipped")
                       .arg(bar(f, kBarWidth))
                       .arg(int(std::floor(f * 100 + 1e-9)), 3)
                       .arg(done_ + failed_ + stopped_ + skipped_)
                       .arg(total)
                       .arg(done_)
                       .arg(failed_)
                       .arg(skipped_);
    if (stopped_ > 0) {
        line += QString(", %1 stopped").arg(stopped_);
    }
    // From the cells measured so far: their mean wall time for each cell still to run.
    const int left = total - (done_ + failed_ + stopped_ + skipped_);
    if (left > 0 && measured_ > 0) {
        const double meanS = measuredMs_ / measured_ / 1000.0;
        double runningLeft = 0;
        for (auto it = running_.begin(); it != running_.end(); ++it) {
            runningLeft += std::max(0.0, meanS - double(clock_.elapsed() - it->startMs) / 1000.0);
        }
        line += "  ETA " + duration(runningLeft + meanS * (left - int(running_.size())));
    } else if (left > 0) {
        line += "  ETA ?";
    }
    return line;
}

void RunProgressView::clearLive() {
    if (!live_ || liveLines_ == 0) {
        return;
    }
    // Up to the first live line, then clear everything below.
    std::fprintf(out_, "\r\033[%dA\033[J", liveLines_);
    liveLines_ = 0;
}

void RunProgressView::draw(bool force) {
    if (!live_ || finished_) {
        return;
    }
    const qint64 now = clock_.elapsed();
    if (!force && now - lastDrawMs_ < kRedrawMs) {
        return;
    }
    lastDrawMs_ = now;
    clearLive();
    const int width = terminalWidth(out_);
    QString text;
    for (auto it = running_.begin(); it != running_.end(); ++it) {
        text += fit(cellLine(it.key(), *it), width) + "\n";
        ++liveLines_;
    }
    text += fit(overallLine(), width) + "\n";
    ++liveLines_;
    std::fputs(qPrintable(text), out_);
    std::fflush(out_);
}

void RunProgressView::finish() {
    if (finished_) {
        return;
    }
    if (live_) {
        clearLive();
        running_.clear();
        std::fprintf(out_, "%s\n", qPrintable(fit(overallLine(), terminalWidth(out_))));
        std::fflush(out_);
    }
    finished_ = true;
}

ProgressLine::ProgressLine(std::FILE* out, bool live, QString what)
    : out_(out), live_(live), what_(std::move(what)) {}

void ProgressLine::update(int done, int total, const QString& name) {
    if (live_) {
        const double f = total > 0 ? double(done) / total : 1.0;
        const QString line =
            QString("%1 %2 %3/%4 %5").arg(what_, bar(f, kBarWidth)).arg(done).arg(total).arg(name);
        std::fprintf(out_, "\r\033[K%s", qPrintable(fit(line, terminalWidth(out_))));
        std::fflush(out_);
        open_ = true;
    } else {
        std::fprintf(out_, "%s %d/%d %s\n", qPrintable(what_), done, total, qPrintable(name));
    }
}

void ProgressLine::finish() {
    if (open_) {
        std::fputs("\n", out_);
        open_ = false;
    }
}

} // namespace commprof::cli
