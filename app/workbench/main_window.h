#pragma once
// The workbench's main window: docks, menus, and the wiring between views and models.

#include "report/report_data.h"

#include <QMainWindow>

#include <memory>

namespace commprof::models {
class StepTableModel;
class ProbeModel;
} // namespace commprof::models
namespace commprof::widgets {
class ProbeView;
class DiffView;
class TimelineView;
class MatrixDesigner;
class RunMonitor;
class ResultsView;
class CellInspectorPanel;
} // namespace commprof::widgets

namespace commprof::workbench {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    void openResults(const QString& dir);
    void openMatrix(const QString& path);
    // Writes the report (cells.csv, macros.tex, figures) and every plot as PDF/PNG/SVG.
    bool exportReport(const QString& outDir);
    // Parses off the GUI thread; the table fills in when the result arrives.
    void openTrace(const QString& path);
    // Diffs two fingerprinted runs off the GUI thread and shows the first divergence.
    void compareRuns(const QString& dirA, const QString& dirB);
    // Starts the run monitor on the designer's plan.
    void startRun();
    void selectResultsCell(const QString& id);
    // Runs the environment probe off the GUI thread.
    void runProbe();
    // Renders every main view to OUTDIR/<view>.png.
    bool saveScreenshots(const QString& outDir);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void restoreLayout();
    models::StepTableModel* steps_ = nullptr;
    models::ProbeModel* probeModel_ = nullptr;
    widgets::ProbeView* probeView_ = nullptr;
    widgets::DiffView* diffView_ = nullptr;
    widgets::TimelineView* timeline_ = nullptr;
    widgets::MatrixDesigner* designer_ = nullptr;
    widgets::RunMonitor* monitor_ = nullptr;
    widgets::ResultsView* results_ = nullptr;
    widgets::CellInspectorPanel* inspector_ = nullptr;
    std::shared_ptr<const report::ReportData> resultsData_;
    QString resultsDir_;
};

} // namespace commprof::workbench
