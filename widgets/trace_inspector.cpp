// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_inspector.h"

#include "analysis/critical_path.h"
#include "inputs/ddp_job_files.h"
#include "inputs/ddp_params_file.h"
#include "layout_helpers.h"
#include "models/step_table_model.h"
#include "range_aggregate_view.h"
#include "report/ddp_step_graph_text.h"
#include "report/series_names.h"
#include "slice_details_panel.h"
#include "spec/mapped.h"
#include "step_table_view.h"
#include "timeline/range_aggregate.h"
#include "timeline/rank_matching.h"
#include "timeline/ruler.h"
#include "timeline/slice_details.h"
#include "timeline/slice_search.h"
#include "timeline/stack_loader.h"
#include "timeline_search_bar.h"
#include "timeline_view.h"
#include "trace/ddp_steps.h"
#include "trace/event_details.h"
#include "trace/trace_job.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <mutex>

namespace commprof::widgets {

// One lazily opened reader of event args per rank; a reader is not thread-safe.
struct TraceInspector::ArgReader {
    std::mutex mutex;
    std::string path;
    std::unique_ptr<trace::EventDetails> details;
};

namespace {

constexpr const char* kCriticalPathKey = "timeline/criticalPath";

struct DdpRead {
    std::shared_ptr<const analysis::DdpJobAnalysis> job;
    std::vector<analysis::CriticalStep> path;
};

struct SelectionFacts {
    timeline::SliceRef slice;
    timeline::MatchedSlices matched;
    std::optional<SliceDetailsPanel::Args> args;
    QString argsError;
};

} // namespace

TraceInspector::TraceInspector(jobs::JobTracker* loads, QWidget* parent)
    : QWidget(parent), loads_(loads ? loads : new jobs::JobTracker(this)) {
    timeline_ = new TimelineView(this);
    details_ = new SliceDetailsPanel(this);
    searchBar_ = new TimelineSearchBar(this);
    steps_ = new models::StepTableModel(this);
    stepTable_ = new StepTableView(this);
    stepTable_->setModel(steps_);
    aggregate_ = new RangeAggregateView(this);
    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    tabs_->addTab(stepTable_, "Steps");
    tabs_->addTab(aggregate_, "Range by name");

    layOut(makeToolbar());
    connectShortcuts();
    connectViews();
    makeCriticalPathAction();
}

// The shown name, search, colouring, whose steps and the summary in a line; the culprits under
// it, hidden until the critical path is shown.
QHBoxLayout* TraceInspector::makeToolbar() {
    colouring_ = new QComboBox(this);
    colouring_->addItems({"Colour by name", "Colour by class"});
    colouring_->setToolTip("Slices coloured by a stable hash of their name, or by what the "
                           "metrics count them as");
    focus_ = new QComboBox(this);
    focus_->setToolTip("Whose steps the band strip and the step table show");
    // Items arrive after the first show: size to them then, or "Steps of rank 0" is cut.
    focus_->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    focus_->setEnabled(false);
    summary_ = new QLabel(this);
    summary_->setStyleSheet("color:#555");
    // Cut rather than widen the window: the full text is in the tooltip.
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    shown_ = new QLabel(this);
    shown_->setObjectName("shownName");
    shown_->setTextFormat(Qt::PlainText);
    QFont bold = shown_->font();
    bold.setBold(true);
    shown_->setFont(bold);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(shown_);
    bar->addWidget(searchBar_, 3);
    bar->addWidget(colouring_);
    bar->addWidget(focus_);
    bar->addWidget(summary_, 2);
    culprits_ = new QLabel(this);
    culprits_->setObjectName("culprits");
    culprits_->setTextFormat(Qt::PlainText);
    culprits_->setStyleSheet(QString("color:%1").arg(TimelineView::criticalPathColour().name()));
    culprits_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    culprits_->setContentsMargins(4, 0, 4, 2);
    culprits_->hide();

    return bar;
}

void TraceInspector::layOut(QHBoxLayout* bar) {
    // The timeline across the whole width, as tall as it can be; the step table and the
    // details below it, side by side, which the user may shrink to nothing or hide.
    auto* top = new QWidget(this);
    auto* topLayout = bareLayout<QVBoxLayout>(top, 0);
    topLayout->addLayout(bar);
    topLayout->addWidget(culprits_);
    topLayout->addWidget(timeline_, 1);
    lower_ = makeSplitter(Qt::Horizontal, {{tabs_, 3}, {details_, 2}}, this);
    QSplitter* split = makeSplitter(Qt::Vertical, {{top, 3}, {lower_, 1}}, this);
    split->setCollapsible(1, true);
    auto* layout = bareLayout<QVBoxLayout>(this);
    layout->addWidget(split);
}

void TraceInspector::connectShortcuts() {
    // Search works wherever the focus is in the window while the inspector is shown (a hidden
    // widget's shortcuts do not fire).
    new QShortcut(QKeySequence::Find, this, searchBar_, &TimelineSearchBar::focusSearch,
                  Qt::WindowShortcut);
    new QShortcut(
        QKeySequence::FindNext, this, this, [this] { nextMatch(true); }, Qt::WindowShortcut);
    new QShortcut(
        QKeySequence::FindPrevious, this, this, [this] { nextMatch(false); }, Qt::WindowShortcut);
}

// The views follow each other: a slice, a step or a range picked in one shows in the others.
void TraceInspector::connectViews() {
    connect(timeline_, &TimelineView::sliceSelected, this, &TraceInspector::onSliceSelected);
    connect(details_, &SliceDetailsPanel::sliceRequested, this, [this](timeline::SliceRef s) {
        selectSlice(s);
        timeline_->setFocus(Qt::OtherFocusReason); // the timeline's keys work on it at once
    });
    connect(timeline_, &TimelineView::rangeSelected, this, &TraceInspector::onRange);
    connect(timeline_, &TimelineView::stepActivated, this, [this](int step) {
        stepTable_->selectStep(step);
        onStepChosen(step);
    });
    connect(timeline_, &TimelineView::originReset, this, [this] { stepTable_->selectStep(-1); });
    connect(stepTable_, &StepTableView::stepChosen, this, &TraceInspector::onStepChosen);
    connect(searchBar_, &TimelineSearchBar::searchChanged, this, &TraceInspector::search);
    connect(searchBar_, &TimelineSearchBar::nextRequested, this, [this] { nextMatch(true); });
    connect(searchBar_, &TimelineSearchBar::previousRequested, this, [this] { nextMatch(false); });
    connect(colouring_, &QComboBox::currentIndexChanged, this, [this](int i) {
        timeline_->setColouring(i == 1 ? TimelineView::Colouring::ByClass
                                       : TimelineView::Colouring::ByName);
    });
    connect(focus_, &QComboBox::currentIndexChanged, this, &TraceInspector::setFocusRank);
}

void TraceInspector::makeCriticalPathAction() {
    // The key works wherever the focus is in the inspector; the owner puts the action in a menu.
    criticalPath_ = new QAction("&Critical path", this);
    criticalPath_->setCheckable(true);
    criticalPath_->setShortcut(QKeySequence(Qt::Key_C));
    criticalPath_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    criticalPath_->setToolTip("Each step's critical path over the tracks of the rank the others "
                              "waited for, with the culprit named (a DDP job's traces)");
    addAction(criticalPath_);
    connect(criticalPath_, &QAction::toggled, timeline_, &TimelineView::setCriticalPathShown);
    connect(criticalPath_, &QAction::toggled, this, &TraceInspector::showCulprits);
    // The user's choice is remembered; until there is one, it is on for a job of several ranks.
    if (const QVariant chosen = QSettings("commprof", "workbench").value(kCriticalPathKey);
        chosen.isValid()) {
        criticalPath_->setChecked(chosen.toBool());
    }
    connect(criticalPath_, &QAction::triggered, this,
            [](bool on) { QSettings("commprof", "workbench").setValue(kCriticalPathKey, on); });
    connect(timeline_, &TimelineView::criticalStepClicked, this, [this](int i) {
        if (std::size_t(i) < timeline_->criticalPath().size()) {
            details_->showCriticalStep(timeline_->criticalPath()[std::size_t(i)]);
        }
    });
}

// The job's culprits as `trace ddp` lists them (the step graph's own lists, largest first, in
// its words): the first of each above the timeline while the critical path is shown, all of
// them in its tooltip.
void TraceInspector::showCulprits() {
    QStringList all, first;
    if (ddpJob_) {
        for (const auto* list : {&ddpJob_->graph.culpritRanks, &ddpJob_->graph.culpritGradients}) {
            for (const analysis::Culprit& c : *list) {
                all << report::describe(c);
            }
            if (!list->empty()) {
                first << report::describe(list->front());
            }
        }
    }
    culprits_->setText(first.isEmpty() ? QString() : "Critical path: " + first.join("; "));
    culprits_->setToolTip(all.join('\n'));
    culprits_->setVisible(criticalPath_->isChecked() && !first.isEmpty());
}

void TraceInspector::openCell(const QString& cellDir) {
    const QStringList files = timeline::traceFilesOfCell(cellDir);
    if (files.isEmpty()) {
        loads_->cancel();
        emit loadFailed(cellDir, QString("%1 holds no trace_rank<R>.json.gz: the cell was run "
                                         "without tracing, or did not get that far")
                                     .arg(cellDir));
        return;
    }
    openFiles(files);
}

void TraceInspector::openFiles(const QStringList& files) {
    paramsFile_.clear(); // another job's parameters are not these traces'
    const QFileInfo first(files.value(0));
    what_ =
        files.size() == 1
            ? first.fileName()
            : QString("%1 ranks of %2").arg(files.size()).arg(QFileInfo(first.path()).fileName());
    // A cell's traces are named by the cell (its folder), a lone trace by its file.
    const bool ofACell = first.fileName().startsWith("trace_rank");
    const QString name =
        ofACell ? QString("cell %1 (%2)")
                      .arg(QFileInfo(first.path()).fileName(), report::ranksText(int(files.size())))
                : first.fileName();
    loads_->start(
        "Reading " + what_,
        [files](const jobs::JobContext& job) {
            auto stack = std::make_shared<const timeline::TimelineStack>(
                timeline::loadStack(files, [&job] { return job.cancelled(); }));
            job.throwIfCancelled();
            return stack;
        },
        [this, name](const std::shared_ptr<const timeline::TimelineStack>& stack) {
            // Named first: the owner reads the name as setStack() says the traces loaded.
            shown_->setText(name);
            shown_->setToolTip(name);
            setStack(stack);
        },
        [this, files](const QString& error) {
            emit loadFailed(files.size() == 1 ? files.first() : what_, error);
        });
}

void TraceInspector::openFolder(const QString& dir) {
    QStringList files = timeline::traceFilesOfCell(dir);
    if (files.isEmpty()) {
        try {
            for (const std::string& f : trace::traceFilesIn(dir.toStdString())) {
                // The parameters file beside a job's traces is no trace.
                if (QFileInfo(QString::fromStdString(f)).fileName() != inputs::kParamsFileName) {
                    files << QString::fromStdString(f);
                }
            }
        } catch (const std::exception& e) {
            loads_->cancel();
            emit loadFailed(dir, QString::fromUtf8(e.what()));
            return;
        }
    }
    if (files.isEmpty()) {
        loads_->cancel();
        emit loadFailed(dir, QString("%1 holds no trace (*.json, *.json.gz)").arg(dir));
        return;
    }
    openFiles(files);
}

void TraceInspector::setParamsFile(const QString& path) {
    paramsFile_ = path;
    readDdpJob();
}

void TraceInspector::readDdpJob() {
    ddpJob_.reset();
    timeline_->setCriticalPath({});
    showCulprits();
    if (!stack_ || stack_->ranks.empty()) {
        ddpJobs_->cancel();
        emit ddpJobMissing("No trace is open: open a DDP job's traces (File > Open trace "
                           "folder) to replay its step.");
        return;
    }
    const auto stack = stack_;
    const QString params =
        paramsFile_.isEmpty() ? inputs::fileBeside({stack->ranks.front()->path}) : paramsFile_;
    ddpJobs_->start(
        "Reading the DDP steps",
        [stack, params](const jobs::JobContext& job) {
            std::vector<trace::DdpRankSteps> steps;
            std::vector<int> numbers;
            for (const auto& r : stack->ranks) {
                job.throwIfCancelled();
                steps.push_back(trace::ddpSteps(r->trace));
                numbers.push_back(r->rank);
            }
            analysis::DdpJob read = analysis::ddpJobOf(std::move(steps), numbers);
            if (!params.isEmpty()) {
                inputs::attachParams(&read, inputs::readDdpParams(params), params);
            }
            DdpRead out;
            out.job = std::make_shared<const analysis::DdpJobAnalysis>(std::move(read));
            const auto& p = out.job->job.params;
            out.path = analysis::criticalPath(out.job->graph, p ? p->names() : QStringList{});
            return out;
        },
        [this](const DdpRead& r) {
            ddpJob_ = r.job;
            timeline_->setCriticalPath(r.path);
            showCulprits();
            emit ddpJobRead(r.job);
        },
        [this](const QString& why) {
            emit ddpJobMissing("Nothing to replay in the traces shown: " + why);
        });
}

void TraceInspector::clear() {
    loads_->cancel();
    setStack(nullptr);
}

void TraceInspector::setStack(std::shared_ptr<const timeline::TimelineStack> stack) {
    stack_ = std::move(stack);
    selectionJobs_->cancel();
    searchJobs_->cancel();
    matches_.reset();
    currentMatch_ = 0;
    readers_.clear();
    timeline_->setStack(stack_);
    if (stack_ && !QSettings("commprof", "workbench").contains(kCriticalPathKey)) {
        criticalPath_->setChecked(stack_->ranks.size() > 1);
    }
    details_->clearSlice();
    onRange(0, 0); // no range: the step table in front
    {
        const QSignalBlocker block(focus_);
        focus_->clear();
        if (stack_) {
            for (const auto& r : stack_->ranks) {
                focus_->addItem(QString("Steps of rank %1").arg(r->rank));
                auto reader = std::make_shared<ArgReader>();
                reader->path = r->path.toStdString();
                readers_.push_back(std::move(reader));
            }
        }
        focus_->setEnabled(focus_->count() > 1);
        focus_->setVisible(focus_->count() > 1);
    }
    setFocusRank(0);
    if (!stack_) {
        summary_->clear();
        shown_->clear();
        readDdpJob();
        return;
    }
    // The keys (W/S/A/D, F, ?) go to the new timeline at once, unless the user is typing in
    // the search field.
    if (isVisible() && !searchBar_->isAncestorOf(QApplication::focusWidget())) {
        timeline_->setFocus(Qt::OtherFocusReason);
    }
    std::size_t events = 0;
    for (const auto& r : stack_->ranks) {
        events += r->trace.events.size();
    }
    summary_->setText(QString("%1, %L2 slices, %3")
                          .arg(report::ranksText(int(stack_->ranks.size())))
                          .arg(events)
                          .arg(timeline::formatDuration(stack_->endUs)));
    summary_->setToolTip(summary_->text());
    if (!searchBar_->text().isEmpty()) {
        search(searchBar_->text(), searchBar_->regex());
    }
    emit loaded(primaryTrace(), QStringList(stack_->warnings.begin(), stack_->warnings.end()));
    readDdpJob();
}

QString TraceInspector::primaryTrace() const {
    if (!stack_ || stack_->ranks.empty()) {
        return {};
    }
    const int i = std::clamp(timeline_->focusRank(), 0, int(stack_->ranks.size()) - 1);
    return stack_->ranks[std::size_t(i)]->path;
}

void TraceInspector::setFocusRank(int rankIndex) {
    timeline_->setFocusRank(std::max(0, rankIndex));
    if (!stack_ || stack_->ranks.empty()) {
        steps_->setSummary({});
        return;
    }
    const int i = std::clamp(rankIndex, 0, int(stack_->ranks.size()) - 1);
    steps_->setSummary(stack_->ranks[std::size_t(i)]->summary);
    if (focus_->currentIndex() != i) {
        const QSignalBlocker block(focus_);
        focus_->setCurrentIndex(i);
    }
}

void TraceInspector::selectSlice(timeline::SliceRef slice) {
    timeline_->select(slice, true);
    onSliceSelected(slice);
}

void TraceInspector::onSliceSelected(timeline::SliceRef slice) {
    if (!stack_ || !slice.valid()) {
        selectionJobs_->cancel();
        timeline_->setMatched({});
        details_->clearSlice();
        return;
    }
    const auto details = timeline::describeSlice(*stack_, slice);
    const auto numbers =
        spec::mapped<std::vector<int>>(stack_->ranks, [](const auto& r) { return r->rank; });
    timeline_->setMatched({});
    details_->showSlice(details, {}, numbers, timeline_->origin());
    emit sliceSelected(timeline_->describe(slice).replace('\n', "  "));
    const auto stack = stack_;
    const auto reader = readers_[std::size_t(slice.rank)];
    const std::uint64_t offset =
        stack->ranks[std::size_t(slice.rank)]->trace.events[slice.event].offset;
    selectionJobs_->start(
        "Reading the slice's args",
        [stack, reader, slice, offset](const jobs::JobContext& job) {
            SelectionFacts f;
            f.slice = slice;
            if (stack->ranks.size() > 1) {
                f.matched = timeline::matchAcrossRanks(*stack, slice);
            }
            job.throwIfCancelled();
            try {
                const std::lock_guard lock(reader->mutex);
                if (!reader->details) {
                    reader->details = std::make_unique<trace::EventDetails>(reader->path);
                }
                f.args = reader->details->args(offset);
            } catch (const std::exception& e) {
                f.argsError = QString("The args could not be read again: %1").arg(e.what());
            }
            return f;
        },
        [this, details, numbers](const SelectionFacts& f) {
            if (!(timeline_->selected() == f.slice)) {
                return;
            }
            timeline_->setMatched(f.matched);
            details_->showSlice(details, f.matched, numbers, timeline_->origin());
            details_->showArgs(f.args, f.argsError);
        });
}

void TraceInspector::onRange(double fromUs, double toUs) {
    if (!stack_ || !(toUs > fromUs)) {
        rangeJobs_->cancel();
        details_->clearRange();
        aggregate_->clear();
        tabs_->setCurrentWidget(stepTable_);
        return;
    }
    details_->showRange(fromUs, toUs, timeline::measureRange(*stack_, fromUs, toUs),
                        timeline_->origin());
    // A tenth of eight million slices takes about 0.1 s: off the GUI thread, as a search.
    const auto stack = stack_;
    rangeJobs_->start(
        "Summing the range by name",
        [stack, fromUs, toUs](const jobs::JobContext&) {
            return timeline::aggregateRange(*stack, fromUs, toUs);
        },
        [this, fromUs, toUs,
         ranks = int(stack->ranks.size())](const std::vector<timeline::NameAggregate>& rows) {
            aggregate_->showRange(fromUs, toUs, ranks, rows);
        });
    tabs_->setCurrentWidget(aggregate_);
}

void TraceInspector::onStepChosen(int stepIndex) {
    if (!stack_ || stack_->ranks.empty()) {
        return;
    }
    const std::size_t r =
        std::size_t(std::clamp(timeline_->focusRank(), 0, int(stack_->ranks.size()) - 1));
    const auto& steps = stack_->ranks[r]->steps;
    if (stepIndex < 0 || std::size_t(stepIndex) >= steps.size()) {
        timeline_->setOrigin(0, "from the trace start");
        timeline_->fitAll();
        return;
    }
    const auto& step = steps[std::size_t(stepIndex)];
    timeline_->zoomToStep(stepIndex);
    timeline_->setOrigin(stack_->toDisplay(r, step.window.start),
                         QString("from the start of step %1").arg(step.step));
}

void TraceInspector::search(const QString& text, bool regex) {
    if (searchBar_->text() != text || searchBar_->regex() != regex) {
        const QSignalBlocker block(searchBar_);
        searchBar_->setQuery(text, regex);
    }
    pendingStep_ = 0;
    if (!stack_ || text.isEmpty()) {
        searchJobs_->cancel();
        matches_.reset();
        timeline_->setMatches(nullptr);
        searchBar_->setResult(0, 0);
        return;
    }
    const auto stack = stack_;
    searchJobs_->start(
        "Finding " + text,
        [stack, text, regex](const jobs::JobContext&) {
            return std::make_shared<const timeline::SearchMatches>(
                timeline::searchSlices(*stack, text, regex));
        },
        [this](const std::shared_ptr<const timeline::SearchMatches>& m) {
            matches_ = m;
            currentMatch_ = m->count();
            timeline_->setMatches(m);
            searchBar_->setResult(m->count(), currentMatch_, m->error);
            if (pendingStep_ != 0) {
                nextMatch(pendingStep_ > 0);
            }
            pendingStep_ = 0;
        });
}

void TraceInspector::nextMatch(bool forward) {
    if (searchJobs_->running()) {
        pendingStep_ = forward ? 1 : -1; // done when the matches arrive
        return;
    }
    if (!matches_ || matches_->count() == 0) {
        return;
    }
    const std::size_t n = matches_->count();
    std::size_t i;
    if (currentMatch_ < n) {
        i = forward ? (currentMatch_ + 1) % n : (currentMatch_ + n - 1) % n;
    } else {
        // From what is on screen: the first match after its left edge (or before its right).
        i = matches_->nextAfter(forward ? timeline_->axis().startUs() : timeline_->axis().endUs(),
                                forward);
    }
    currentMatch_ = i;
    timeline_->setCurrentMatch(i);
    searchBar_->setResult(n, i, matches_->error);
    selectSlice(matches_->slices[i]);
}

} // namespace commprof::widgets
