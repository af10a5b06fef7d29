// Frame time of the trace timeline at a million events, at several zoom levels, offscreen.
// Usage: QT_QPA_PLATFORM=offscreen timeline_bench [EVENTS]

#include "timeline/timeline_data.h"
#include "timeline_view.h"
#include "trace/classification.h"

#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 1000000;
    commprof::trace::Trace t;
    const auto mm = t.strings.intern("aten::mm");
    const auto gloo = t.strings.intern("gloo:all_reduce");
    for (std::size_t i = 0; i < n; ++i) {
        t.events.push_back({double(i) * 2.0, double(i) * 2.0 + 1.5, i % 7 ? mm : gloo, 0, 1,
                            std::int64_t(i % 8), false});
    }
    commprof::trace::classify(t);
    QElapsedTimer build;
    build.start();
    auto data = std::make_shared<commprof::timeline::TimelineData>(
        commprof::timeline::buildTimeline(std::move(t)));
    std::printf("events: %zu, lanes: %zu, build: %lld ms\n", n, data->lanes.size(),
                (long long)build.elapsed());
    commprof::widgets::TimelineView view;
    view.resize(1600, 300);
    view.setData(data);
    for (double zoom : {1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0}) {
        view.setVisibleRange(data->startUs, data->startUs + (data->endUs - data->startUs) / zoom);
        std::vector<double> ms;
        for (int i = 0; i < 15; ++i) {
            QElapsedTimer frame;
            frame.start();
            view.grab();
            ms.push_back(double(frame.nsecsElapsed()) / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("zoom %8.0fx: median frame %.2f ms, %d rectangles (goal < 16 ms)\n", zoom,
                    ms[ms.size() / 2], view.lastFrameRects());
    }
    return 0;
}
