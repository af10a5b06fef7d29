// SPDX-License-Identifier: GPL-3.0-or-later
// commprof run: a matrix's feasible cells, each a pool of ranks, with a live view on a terminal.

#include "cli_common.h"
#include "model_exporter.h"
#include "terminal_progress.h"

#include "runner/matrix_runner.h"
#include "runner/rank_program.h"
#include "runner/slurm_step.h"
#include "spec/rank_contract.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <fcntl.h>
#include <iterator>
#include <unistd.h>

namespace commprof::cli {
namespace {

// Self-pipe: the handler only writes a byte (async-signal-safe); the event loop reads it and
// stops the run from ordinary code.
int gSignalPipe[2] = {-1, -1};
volatile std::sig_atomic_t gStopSignalled = 0;

void onSignal(int) {
    const int saved = errno;
    gStopSignalled = 1;
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(gSignalPipe[1], &byte, 1);
    errno = saved;
}

// SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT stop the run (the running cell's
// ranks end cleanly, the cell is recorded as stopped) for as long as this lives. Afterwards the
// previous handlers come back, unless a stop was signalled: then the run is ending in its
// orderly exit 1, and a second signal (a supervisor's repeat, 50 ms later) must not turn that
// into a death by the signal, so the stopping signals stay ignored until the process exits.
class StopOnSignal {
public:
    explicit StopOnSignal(runner::MatrixRunner& run) {
        if (::pipe2(gSignalPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
            return;
        }
        notifier_ = new QSocketNotifier(gSignalPipe[0], QSocketNotifier::Read);
        QObject::connect(notifier_, &QSocketNotifier::activated, notifier_, [&run] {
            char buf[64];
            while (::read(gSignalPipe[0], buf, sizeof buf) > 0) {
            }
            run.stop();
        });
        struct sigaction sa {};
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        for (std::size_t i = 0; i < std::size(kSignals); ++i) {
            ::sigaction(kSignals[i], &sa, &old_[i]);
        }
    }
    ~StopOnSignal() {
        if (!notifier_) {
            return;
        }
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        for (std::size_t i = 0; i < std::size(kSignals); ++i) {
            ::sigaction(kSignals[i], gStopSignalled ? &ignore : &old_[i], nullptr);
        }
        delete notifier_;
        ::close(gSignalPipe[0]);
        ::close(gSignalPipe[1]);
        gSignalPipe[0] = gSignalPipe[1] = -1;
    }
    StopOnSignal(const StopOnSignal&) = delete;
    StopOnSignal& operator=(const StopOnSignal&) = delete;

private:
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    QSocketNotifier* notifier_ = nullptr;
    struct sigaction old_[std::size(kSignals)]{};
};

// Progress on stdout for as long as someone reads it: a reader that goes away (`| head`) ends
// the progress, never the run.
class ProgressOut {
public:
    explicit ProgressOut(bool on) : on_(on) {}
    bool on() const { return on_; }
    void emitLine(const QJsonObject& o) {
        if (!on_) {
            return;
        }
        const QByteArray line = QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
        if (std::fwrite(line.constData(), 1, std::size_t(line.size()), stdout) !=
                std::size_t(line.size()) ||
            std::fflush(stdout) != 0) {
            on_ = false;
            std::clearerr(stdout);
            std::fprintf(stderr, "commprof: progress output closed; the run goes on\n");
        }
    }

private:
    bool on_;
};

} // namespace

int runCommand(const Args& args) {
    const QString path = args.operands().first();
    runner::RunOptions options;
    // Absolute here: the ranks run in their cell's folder.
    options.outDir = QFileInfo(args.value("--out")).absoluteFilePath();
    options.resume = args.has("--resume");
    options.onlyCell = args.value("--only");
    feasibility::PlanOptions planOptions;
    planOptions.profilePath = args.value("--profile");
    planOptions.launcher = launcherOf(args);
    options.rankProgram = runner::defaultRankProgram();
    feasibility::Plan plan;
    try {
        plan = feasibility::makePlan(loadDescribing([&path] { return matrix::loadMatrix(path); }),
                                     planOptions);
    } catch (const matrix::MatrixError& e) {
        return badInput(e);
    }
    if (!options.onlyCell.isEmpty() &&
        std::none_of(plan.cells.begin(), plan.cells.end(),
                     [&](const auto& pc) { return pc.cell.id == options.onlyCell; })) {
        return badInput(QString("%1: no cell '%2' in this matrix").arg(path, options.onlyCell));
    }

    runner::MatrixRunner run(plan, options);
    const StopOnSignal stopOnSignal(run);
    ProgressOut progress(args.has("--json-progress"));
    std::vector<RunProgressView::CellPlan> cells;
    for (const auto& pc : plan.cells) {
        if (options.onlyCell.isEmpty() || pc.cell.id == options.onlyCell) {
            cells.push_back({pc.cell.id, pc.cell.worldSize, pc.cell.config.iterations,
                             pc.cell.config.timeoutS});
        }
    }
    RunProgressView view(stderr, isLiveTerminal(stderr), std::move(cells));
    QObject::connect(&run, &runner::MatrixRunner::cellStateChanged,
                     [&](const QString& id, runner::CellState s, const QString& detail) {
                         progress.emitLine({{"event", "cell"},
                                            {"id", id},
                                            {"state", runner::toString(s)},
                                            {"detail", detail}});
                         view.cellState(id, runner::toString(s), detail);
                     });
    // What the run itself did before its cells (ranks or Slurm jobs of a killed run ended).
    QObject::connect(&run, &runner::MatrixRunner::logLine,
                     [&](const QString& id, const QString& line) {
                         if (id.isEmpty()) {
                             view.note("commprof: " + line);
                         }
                     });
    QObject::connect(
        &run, &runner::MatrixRunner::launcherState,
        [&](const QString& id, const QJsonObject& state) {
            QJsonObject o = state;
            o["event"] = "slurm";
            o["cell"] = id;
            progress.emitLine(o);
            view.note(QString("%1 slurm %2").arg(id, -34).arg(runner::schedulerStateText(state)));
        });
    QObject::connect(&run, &runner::MatrixRunner::rankProgress,
                     [&](const QString& id, int rank, const QJsonObject& e) {
                         if (progress.on()) {
                             QJsonObject o = e;
                             o["cell"] = id;
                             progress.emitLine(o);
                         }
                         namespace P = spec::progress;
                         if (e[P::kEvent].toString() == P::kIteration) {
                             view.iteration(id, rank, e[P::kIter].toInt(), e[P::kOf].toInt(),
                                            e[P::kStepMs].toDouble());
                         }
                     });
    const runner::RunSummary s = run.runBlocking();
    view.finish();
    if (!s.refused.isEmpty()) {
        return badInput(s.refused);
    }
    if (!s.lost.isEmpty()) {
        printError(s.lost);
    }
    // Kept in memory because the disk may have had no room for them.
    for (const QString& w : s.writeFailures) {
        printError("could not write " + w);
    }
    std::fprintf(stderr,
                 "%d complete, %d failed, %d stopped, %d skipped_infeasible, %d already "
                 "complete%s; results in %s\n",
                 s.complete, s.failed, s.stoppedCells, s.skippedInfeasible, s.resumed,
                 s.stopped ? ", stopped early" : "", qPrintable(options.outDir));
    return s.failed > 0 || s.stoppedCells > 0 || s.stopped || !s.lost.isEmpty() ||
                   !s.writeFailures.isEmpty()
               ? NotFine
               : Ok;
}

} // namespace commprof::cli
