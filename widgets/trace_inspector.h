// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The trace inspector: one trace, or every rank of a cell, as a stacked timeline with its
// search bar, details panel and per-step table, all linked. The main window creates one and
// calls openTrace(), openCell() or clear(); everything else happens in here.
//
// Loading runs off the GUI thread through a JobTracker (the owner's, so its status bar shows
// it, or one of our own): every rank's trace is parsed and laid out in parallel, and a newer
// request makes an older one stale, so a slow earlier cell never replaces a later one. Event
// args and the cross-rank match of a selection, searches, and the range summed by name run the
// same way. Once traces are shown, their DDP steps are read as one job (analysis/ddp_job.h) the
// same way: the timeline gets each step's critical path (C shows it), and the owner the job, for
// the What if page, or why there is none.

#include "analysis/ddp_job.h"
#include "jobs/job_tracker.h"
#include "timeline/slice_ref.h"
#include "timeline/timeline_stack.h"

#include <QLabel>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QHBoxLayout;
class QSplitter;
class QTabWidget;

namespace commprof::models {
class StepTableModel;
}
namespace commprof::timeline {
struct SearchMatches;
}

namespace commprof::widgets {

class RangeAggregateView;
class SliceDetailsPanel;
class StepTableView;
class TimelineSearchBar;
class TimelineView;

class TraceInspector : public QWidget {
    Q_OBJECT
public:
    // loads: where trace loading runs (shown by the owner); null: a tracker of our own.
    explicit TraceInspector(jobs::JobTracker* loads = nullptr, QWidget* parent = nullptr);

    void openTrace(const QString& path) { openFiles({path}); }
    // Every trace_rank<R>.json(.gz) of a cell folder, stacked.
    void openCell(const QString& cellDir);
    void openFiles(const QStringList& files);
    // A cell folder's traces, else every trace in the folder (a DDP job's, say), stacked.
    void openFolder(const QString& dir);
    // The DDP parameters file (docs/formats.md) of the traces shown: read again with it. Empty:
    // the params.json beside the traces, if any.
    void setParamsFile(const QString& path);
    void clear();
    // What the timeline shows, as the bar above it names it: "cell <id> (2 ranks)", a trace's
    // file name, or empty.
    QString shownName() const { return shown_->text(); }
    // Shows an already built stack (tests, benchmarks).
    void setStack(std::shared_ptr<const timeline::TimelineStack> stack);

    const timeline::TimelineStack* stack() const { return stack_.get(); }
    // The trace whose steps the table shows (rank 0's by default).
    QString primaryTrace() const;
    void setFocusRank(int rankIndex);
    void selectSlice(timeline::SliceRef slice);
    void search(const QString& text, bool regex);
    void nextMatch(bool forward);
    const timeline::SearchMatches* matches() const { return matches_.get(); }

    TimelineView* timeline() const { return timeline_; }
    SliceDetailsPanel* details() const { return details_; }
    TimelineSearchBar* searchBar() const { return searchBar_; }
    StepTableView* stepTable() const { return stepTable_; }
    // The selected range summed by name, on a tab beside the step table.
    RangeAggregateView* rangeAggregate() const { return aggregate_; }
    QTabWidget* lowerTabs() const { return tabs_; }
    QComboBox* focusChooser() const { return focus_; }
    // The step table (and the range's tab) and the details, below the timeline.
    QSplitter* lowerPane() const { return lower_; }
    models::StepTableModel* steps() const { return steps_; }
    jobs::JobTracker* loads() const { return loads_; }
    jobs::JobTracker* selectionJobs() const { return selectionJobs_; }
    jobs::JobTracker* searchJobs() const { return searchJobs_; }
    jobs::JobTracker* rangeJobs() const { return rangeJobs_; }
    // Checkable, key C: the critical path over the tracks.
    QAction* criticalPathAction() const { return criticalPath_; }

signals:
    // The primary trace's path, and what the parser warned about (a damaged file, a rank that
    // could not be read).
    void loaded(const QString& primaryTrace, const QStringList& warnings);
    void loadFailed(const QString& what, const QString& message);
    void sliceSelected(const QString& description);
    // The shown traces read as one DDP job, or why they are none (a trace with no backward, two
    // jobs mixed, a damaged parameters file).
    void ddpJobRead(std::shared_ptr<const analysis::DdpJobAnalysis> job);
    void ddpJobMissing(const QString& why);

private:
    QHBoxLayout* makeToolbar();
    void layOut(QHBoxLayout* bar);
    void connectShortcuts();
    void connectViews();
    void makeCriticalPathAction();
    void onSliceSelected(timeline::SliceRef slice);
    void onRange(double fromUs, double toUs);
    void onStepChosen(int stepIndex);
    void readDdpJob();
    void showCulprits();
    struct ArgReader;

    jobs::JobTracker* loads_ = nullptr;
    jobs::JobTracker* selectionJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* searchJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* rangeJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* ddpJobs_ = new jobs::JobTracker(this);
    QAction* criticalPath_ = nullptr;
    std::shared_ptr<const analysis::DdpJobAnalysis> ddpJob_;
    QString paramsFile_;
    TimelineView* timeline_ = nullptr;
    SliceDetailsPanel* details_ = nullptr;
    TimelineSearchBar* searchBar_ = nullptr;
    StepTableView* stepTable_ = nullptr;
    RangeAggregateView* aggregate_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    models::StepTableModel* steps_ = nullptr;
    QComboBox* colouring_ = nullptr;
    QComboBox* focus_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* culprits_ = nullptr; // the job's culprits, while the critical path is shown
    QLabel* shown_ = nullptr;    // what the timeline shows: the cell, or the trace's file
    QSplitter* lower_ = nullptr;
    std::shared_ptr<const timeline::TimelineStack> stack_;
    std::shared_ptr<const timeline::SearchMatches> matches_;
    std::size_t currentMatch_ = 0;
    int pendingStep_ = 0; // next (+1) or previous (-1) asked for while the search ran
    std::vector<std::shared_ptr<ArgReader>> readers_; // per rank
    QString what_;                                    // what is being loaded, for messages
};

} // namespace commprof::widgets
