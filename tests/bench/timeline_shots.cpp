// SPDX-License-Identifier: GPL-3.0-or-later
// Renders the trace inspector offscreen to a PNG, as a user would see it at a given window
// size, for the README's screenshots.
//
// Usage: QT_QPA_PLATFORM=offscreen timeline_shots OUT.png WxH TRACE_OR_CELL [options]
//   --step N        zoom to the focused rank's N-th step (0-based), as clicking its band
//   --zoom F        then zoom in F times about the middle of the view
//   --select NAME   select the first slice whose name contains NAME (after the zoom: the
//                   first one on screen)
//   --search TEXT   find slices by TEXT
//   --range A:B     measure the range from A to B, fractions of the visible width

#include "job_waits.h"
#include "jobs/job_tracker.h"
#include "slice_details_panel.h"
#include "step_table_view.h"
#include "timeline_view.h"
#include "trace_inspector.h"

#include <QApplication>
#include <QFileInfo>
#include <QTest>

#include <cstdio>

using namespace commprof;

namespace {} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 4) {
        std::fprintf(stderr, "usage: timeline_shots OUT.png WxH TRACE_OR_CELL [--step N] "
                             "[--zoom F] [--select NAME] [--search TEXT] [--range A:B]\n");
        return 2;
    }
    const QString out = args[1];
    const QStringList wh = args[2].split('x');
    widgets::TraceInspector inspector;
    inspector.resize(wh.value(0).toInt(), wh.value(1).toInt());
    inspector.show();
    QString failure;
    QObject::connect(&inspector, &widgets::TraceInspector::loadFailed,
                     [&](const QString&, const QString& e) { failure = e; });
    const QString input = args[3];
    if (QFileInfo(input).isDir()) {
        inspector.openCell(input);
    } else {
        inspector.openTrace(input);
    }
    if (!waitIdle(inspector.loads()) || !inspector.stack()) {
        std::fprintf(stderr, "could not load %s: %s\n", qPrintable(input), qPrintable(failure));
        return 1;
    }
    widgets::TimelineView* view = inspector.timeline();
    for (int i = 4; i + 1 < args.size(); i += 2) {
        const QString opt = args[i];
        const QString value = args[i + 1];
        if (opt == "--step") {
            inspector.stepTable()->selectRow(value.toInt());
        } else if (opt == "--zoom") {
            view->zoomAt(value.toDouble(),
                         widgets::TimelineView::kGutter + view->tracksWidth() / 2);
        } else if (opt == "--select") {
            const auto& stack = *inspector.stack();
            for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
                const auto& t = stack.ranks[r]->trace;
                for (std::uint32_t e = 0; e < t.events.size(); ++e) {
                    const double s = stack.toDisplay(r, t.events[e].startUs);
                    if (s >= view->axis().startUs() && s <= view->axis().endUs() &&
                        QString::fromStdString(t.name(t.events[e])).contains(value)) {
                        inspector.selectSlice({int(r), e});
                        r = stack.ranks.size();
                        break;
                    }
                }
            }
            waitIdle(inspector.selectionJobs());
        } else if (opt == "--search") {
            inspector.search(value, false);
            waitIdle(inspector.searchJobs());
        } else if (opt == "--range") {
            const QStringList ab = value.split(':');
            const double a = view->timeAtX(widgets::TimelineView::kGutter +
                                           ab.value(0).toDouble() * view->tracksWidth());
            const double b = view->timeAtX(widgets::TimelineView::kGutter +
                                           ab.value(1).toDouble() * view->tracksWidth());
            view->setRange(std::make_pair(a, b));
            emit view->rangeSelected(a, b);
        }
    }
    QTest::qWait(200);
    if (!inspector.grab().save(out)) {
        std::fprintf(stderr, "could not write %s\n", qPrintable(out));
        return 1;
    }
    std::printf("%s\n", qPrintable(out));
    return 0;
}
