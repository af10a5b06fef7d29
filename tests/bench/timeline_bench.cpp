// SPDX-License-Identifier: GPL-3.0-or-later
// Frame time of the trace timeline, offscreen, at every zoom from the whole trace down to
// microseconds: one rank of a million nested, labelled events, then eight such ranks stacked,
// then the 54 MB Kineto fixture alone and as eight ranks. The goal is under 16 ms a frame.
// Besides: the overview strip's binning (once per load) and the range-by-name aggregate of a
// tenth of the trace (once per Shift+drag), which both run on the GUI thread.
//
// Usage: QT_QPA_PLATFORM=offscreen timeline_bench [EVENTS_PER_RANK] [FIXTURE]

#include "synthetic_trace.h"
#include "timeline/overview.h"
#include "timeline/range_aggregate.h"
#include "timeline/timeline_stack.h"
#include "timeline_view.h"
#include "trace/trace_reader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace commprof;

namespace {

// This thread's CPU time: what a frame costs even when other work shares the cores.
double cpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

std::shared_ptr<const timeline::TimelineStack>
stackOf(const std::vector<std::shared_ptr<const timeline::RankTimeline>>& ranks) {
    return std::make_shared<const timeline::TimelineStack>(timeline::stackRanks(ranks));
}

// Median frame time over 15 frames at each zoom about the middle of the trace.
void measure(const char* title, std::shared_ptr<const timeline::TimelineStack> stack) {
    widgets::TimelineView view;
    view.resize(1600, 900);
    view.setStack(stack);
    std::size_t events = 0;
    for (const auto& r : stack->ranks) {
        events += r->trace.events.size();
    }
    std::printf("%s: %zu rank(s), %zu events, %zu layout rows\n", title, stack->ranks.size(),
                events, view.layout().rows().size());
    QElapsedTimer once;
    once.start();
    const auto overview = timeline::buildOverview(*stack, widgets::TimelineView::kOverviewBins);
    const double overviewMs = double(once.nsecsElapsed()) / 1e6;
    once.restart();
    const auto names = timeline::aggregateRange(*stack, stack->endUs * 0.45, stack->endUs * 0.55);
    std::printf("  overview: %zu bins binned in %.2f ms; range by name over a tenth of the "
                "trace: %zu names in %.2f ms\n",
                overview.bins, overviewMs, names.size(), double(once.nsecsElapsed()) / 1e6);
    double worst = 0;
    for (double zoom : {1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6}) {
        const double mid = stack->endUs / 2;
        const double span = stack->endUs / zoom;
        view.setVisibleRange(mid - span / 2, mid + span / 2);
        std::vector<double> wall;
        std::vector<double> cpu;
        for (int i = 0; i < 15; ++i) {
            QElapsedTimer frame;
            frame.start();
            const double c0 = cpuMs();
            view.grab();
            cpu.push_back(cpuMs() - c0);
            wall.push_back(double(frame.nsecsElapsed()) / 1e6);
        }
        std::sort(wall.begin(), wall.end());
        std::sort(cpu.begin(), cpu.end());
        worst = std::max(worst, cpu[cpu.size() / 2]);
        std::printf("  zoom %8.0fx (%11.3f us/px): median %6.2f ms CPU, %6.2f ms wall; %5d "
                    "rects, %4d labels\n",
                    zoom, view.axis().usPerPixel(), cpu[cpu.size() / 2], wall[wall.size() / 2],
                    view.lastFrameRects(), view.lastFrameLabels());
    }
    std::printf("  worst median frame: %.2f ms CPU (goal < 16 ms)\n", worst);
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 1000000;
    const QString fixture = argc > 2 ? QString(argv[2])
                                     : QString(COMMPROF_SHARED_FIXTURES
                                               "/traces/kineto_nccl_ddp_ws2_large_rank1.json.gz");

    QElapsedTimer build;
    build.start();
    std::vector<std::shared_ptr<const timeline::RankTimeline>> ranks;
    for (int r = 0; r < 8; ++r) {
        ranks.push_back(std::make_shared<const timeline::RankTimeline>(
            timeline::buildRankTimeline(synthetic::nestedTrace(n, 4, r), r, "synthetic")));
        if (r == 0) {
            std::printf("synthetic rank: built in %lld ms\n", (long long)build.elapsed());
        }
    }
    measure("synthetic, nesting and labels", stackOf({ranks.front()}));
    measure("synthetic, 8 ranks stacked", stackOf(ranks));
    ranks.clear();

    if (QFile::exists(fixture)) {
        const auto real = std::make_shared<const timeline::RankTimeline>(
            timeline::buildRankTimeline(trace::readTraceFile(fixture.toStdString()), 0, fixture));
        measure("54 MB Kineto fixture", stackOf({real}));
        std::vector<std::shared_ptr<const timeline::RankTimeline>> eight;
        for (int r = 0; r < 8; ++r) {
            trace::Trace t = real->trace;
            eight.push_back(std::make_shared<const timeline::RankTimeline>(
                timeline::buildRankTimeline(std::move(t), r, fixture)));
        }
        measure("54 MB Kineto fixture as 8 ranks", stackOf(eight));
    }
    return 0;
}
