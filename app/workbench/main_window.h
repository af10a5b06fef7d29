// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The workbench's main window: the file lifecycle (results, matrix, trace, export), one
// workspace per journey (design, run, inspect, results, probe), one way of showing errors (the
// message bar; a dialog where the user must decide), background jobs with progress and cancel,
// and the wiring between views.

#include "jobs/job_tracker.h"
#include "report/report_data.h"
#include "report_writer.h"
#include "runner/matrix_runner.h"

#include <QMainWindow>

#include <functional>
#include <memory>
#include <optional>

class QLabel;
class QMenu;

namespace commprof::models {
class StepTableModel;
class ProbeModel;
class RunController;
} // namespace commprof::models
namespace commprof::widgets {
class CellInspectorPanel;
class DiffView;
class JobStatus;
class MatrixDesigner;
class MessageBar;
class ProbeView;
class ResultsView;
class RunMonitor;
class StepTableView;
class TimelineView;
class TraceInspector;
class WhatIfView;
class Workspaces;
} // namespace commprof::widgets

namespace commprof::workbench {

class ConfirmController;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    static constexpr int kRecentMax = 8;

    explicit MainWindow(QWidget* parent = nullptr);

    // Files. Each reports its own errors (message bar, or a dialog where the user must decide).
    // Opens a results folder off the GUI thread; a folder that is not one is refused with a
    // dialog and left untouched.
    void openResults(const QString& dir);
    // Puts the matrix the open results were run from into the designer (asking to save the
    // designer's own first); false when there is none or the user cancelled.
    bool showResultsMatrix();
    QAction* showResultsMatrixAction() const { return showResultsMatrix_; }
    void reloadResults();
    // Asks about unsaved changes first. False when the user cancelled or the file could not
    // be read.
    bool openMatrix(const QString& path);
    bool saveMatrix();
    // An empty path asks for one.
    bool saveMatrixAs(const QString& path = {});
    // A trace file; a folder: a cell's ranks, else every trace in it (a DDP job's), stacked,
    // with the What if page for a DDP job.
    void openTrace(const QString& path);
    void openTraces(const QStringList& files);
    void exportReport(const QString& outDir, const widgets::ExportOptions& options);
    // File > Record a job...: `commprof record` in the background; its folder then opens on the
    // What if page.
    void showRecordDialog();
    void compareRuns(const QString& dirA, const QString& dirB);
    // Where a run started here writes; shown in the run monitor before it starts.
    void setRunOutput(const QString& dir);
    void startRun();
    void selectResultsCell(const QString& id);
    void runProbe();
    // Help > Documentation (F1): opens workbench.md with the desktop's program for it, and
    // says in the message bar where the documentation is when none could show it.
    void openDocumentation();
    // The documentation folder Help -> Documentation opens; empty if none is found.
    static QString documentationPath();
    bool saveScreenshots(const QString& outDir);

    // Shows an error in the message bar; for anything a slot could not handle.
    void reportError(const QString& title, const QString& text);

    widgets::MessageBar* messages() const { return messages_; }
    widgets::MatrixDesigner* designer() const { return designer_; }
    widgets::ResultsView* results() const { return results_; }
    widgets::RunMonitor* monitor() const { return monitor_; }
    widgets::TimelineView* timeline() const { return timeline_; }
    widgets::TraceInspector* traceInspector() const { return traceInspector_; }
    widgets::WhatIfView* whatIf() const { return whatIf_; }
    ConfirmController* confirmController() const { return confirm_; }
    widgets::CellInspectorPanel* inspector() const { return inspector_; }
    widgets::StepTableView* stepTable() const { return stepTable_; }
    models::StepTableModel* steps() const { return steps_; }
    widgets::JobStatus* jobStatus() const { return jobStatus_; }
    jobs::JobTracker* traceJobs() const { return traceJobs_; }
    jobs::JobTracker* resultsJobs() const { return resultsJobs_; }
    jobs::JobTracker* exportJobs() const { return exportJobs_; }
    jobs::JobTracker* probeJobs() const { return probeJobs_; }
    jobs::JobTracker* diffJobs() const { return diffJobs_; }
    QString resultsDir() const { return resultsDir_; }
    QString currentTrace() const { return currentTrace_; }
    widgets::Workspaces* workspaces() const { return workspaces_; }
    QMenu* viewMenu() const { return viewMenu_; }
    QStringList recentResults() const;

signals:
    void resultsOpened(const QString& dir);
    void traceShown(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void connectDesigner();
    void buildWorkspaces();
    void buildFileMenu();
    void buildEditMenu();
    void buildViewMenu();
    void buildRunMenu();
    void buildToolsAndHelpMenus();
    // True to go on: saved, discarded, or nothing to save; false when the user cancelled.
    bool maybeSaveMatrix(const QString& why);
    // Runs fn; an exception becomes a message under title. True when fn finished.
    bool attempt(const QString& title, const std::function<void()>& fn);
    void updateTitle();
    void rememberResults(const QString& dir);
    void rebuildRecentMenu();
    void openRecentResults(const QString& dir);
    void showResultsCell(const QString& id);
    void applyRecommendedCap(const analysis::CapGroup& g);
    // Whether the designer's entry of `model` sets bucket_cap_mb to `cap`; nullopt where its
    // text does not parse.
    std::optional<bool> capSetInMatrix(const QString& model, const QString& cap) const;
    void dropCapWarningUnlessItHolds();
    void followMatrixWithOutput();
    void onRunFinished(const runner::RunSummary& summary, const QString& outDir);
    void showExportDialog();
    void chooseRunOutput();
    struct LoadedResults;
    void onResultsLoaded(const QString& dir, const LoadedResults& loaded);
    void onTraceLoaded(const QString& primaryTrace, const QStringList& warnings);

    models::StepTableModel* steps_ = nullptr;
    models::ProbeModel* probeModel_ = nullptr;
    widgets::ProbeView* probeView_ = nullptr;
    widgets::DiffView* diffView_ = nullptr;
    widgets::TimelineView* timeline_ = nullptr;
    widgets::TraceInspector* traceInspector_ = nullptr;
    widgets::WhatIfView* whatIf_ = nullptr;
    ConfirmController* confirm_ = nullptr;
    widgets::StepTableView* stepTable_ = nullptr;
    widgets::MatrixDesigner* designer_ = nullptr;
    models::RunController* run_ = nullptr; // the run started here; monitor_ shows it
    widgets::RunMonitor* monitor_ = nullptr;
    widgets::ResultsView* results_ = nullptr;
    widgets::CellInspectorPanel* inspector_ = nullptr;
    widgets::MessageBar* messages_ = nullptr;
    widgets::JobStatus* jobStatus_ = nullptr;
    QLabel* planStatus_ = nullptr;
    jobs::JobTracker* traceJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* resultsJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* exportJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* probeJobs_ = new jobs::JobTracker(this);
    jobs::JobTracker* diffJobs_ = new jobs::JobTracker(this);
    widgets::Workspaces* workspaces_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    std::shared_ptr<const report::ReportData> resultsData_;
    QString resultsDir_;
    QString currentTrace_;
    bool runOutputChosen_ = false;
    bool stayInView_ = false;    // the next results opened leave the workspace as it is (a Stop)
    QString runOutputChosenFor_; // the designer's matrix file when the user chose the folder
    // The matrix of the open results (run.json's copy), and the file it came from while that
    // file still says the same.
    QString resultsMatrixYaml_, resultsMatrixFile_;
    QAction* showResultsMatrix_ = nullptr;
    widgets::ExportOptions exportOptions_;
    QPair<QString, QString> appliedCap_; // the model and cap the shown cap warning is about
};

} // namespace commprof::workbench
