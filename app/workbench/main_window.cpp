#include "main_window.h"

#include "cell_inspector_panel.h"
#include "determinism/divergence.h"
#include "diff_view.h"
#include "matrix_designer.h"
#include "models/cell_table_model.h"
#include "models/probe_model.h"
#include "models/step_table_model.h"
#include "probe/probe.h"
#include "probe_view.h"
#include "report_writer.h"
#include "results_view.h"
#include "run_monitor.h"
#include "runner/rank_program.h"
#include "step_table_view.h"
#include "store/ingest.h"
#include "timeline/timeline_data.h"
#include "timeline_view.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMenuBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace commprof::workbench {
namespace {

struct ParsedTrace {
    trace::TraceSummary summary;
    std::shared_ptr<const timeline::TimelineData> timeline;
    QString error;
};

ParsedTrace parseTrace(const QString& path) {
    try {
        trace::Trace t = trace::readTraceFile(path.toStdString());
        trace::TraceSummary summary = trace::summarize(t);
        return {std::move(summary),
                std::make_shared<timeline::TimelineData>(timeline::buildTimeline(std::move(t))),
                {}};
    } catch (const trace::TraceError& e) {
        return {{}, nullptr, QString::fromStdString(e.what())};
    }
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle("commprof workbench");
    steps_ = new models::StepTableModel(this);
    auto* table = new widgets::StepTableView(this);
    table->setModel(steps_);
    timeline_ = new widgets::TimelineView(this);
    connect(timeline_, &widgets::TimelineView::eventSelected, this,
            [this](int, const QString& description) {
                statusBar()->showMessage(QString(description).replace('\n', "  "));
            });
    inspector_ = new widgets::CellInspectorPanel(this);
    auto* traceSide = new QSplitter(Qt::Vertical, this);
    traceSide->addWidget(timeline_);
    traceSide->addWidget(table);
    traceSide->setStretchFactor(0, 3);
    auto* inspector = new QSplitter(Qt::Horizontal, this);
    inspector->addWidget(traceSide);
    inspector->addWidget(inspector_);
    inspector->setStretchFactor(0, 4);
    setCentralWidget(inspector);

    probeModel_ = new models::ProbeModel(this);
    probeView_ = new widgets::ProbeView(this);
    probeView_->setModel(probeModel_);
    connect(probeView_, &widgets::ProbeView::probeRequested, this, &MainWindow::runProbe);
    auto* probeDock = new QDockWidget("Probe", this);
    probeDock->setObjectName("probeDock");
    probeDock->setWidget(probeView_);
    addDockWidget(Qt::BottomDockWidgetArea, probeDock);

    diffView_ = new widgets::DiffView(this);
    auto* diffDock = new QDockWidget("Determinism", this);
    diffDock->setObjectName("diffDock");
    diffDock->setWidget(diffView_);
    addDockWidget(Qt::RightDockWidgetArea, diffDock);

    designer_ = new widgets::MatrixDesigner(this);
    auto* designerDock = new QDockWidget("Matrix designer", this);
    designerDock->setObjectName("designerDock");
    designerDock->setWidget(designer_);
    addDockWidget(Qt::LeftDockWidgetArea, designerDock);
    tabifyDockWidget(designerDock, diffDock);
    monitor_ = new widgets::RunMonitor(this);
    auto* monitorDock = new QDockWidget("Run monitor", this);
    monitorDock->setObjectName("monitorDock");
    monitorDock->setWidget(monitor_);
    addDockWidget(Qt::LeftDockWidgetArea, monitorDock);
    tabifyDockWidget(designerDock, monitorDock);
    designerDock->raise();
    connect(designer_, &widgets::MatrixDesigner::planChanged, monitor_,
            [this](const feasibility::Plan& plan) {
                monitor_->setPlan(plan);
                const QString out = resultsDir_.isEmpty()
                                        ? QDir("results").filePath(plan.matrix.name)
                                        : resultsDir_;
                monitor_->setOutput(out, runner::defaultRankProgram());
            });

    results_ = new widgets::ResultsView(this);
    auto* resultsDock = new QDockWidget("Results", this);
    resultsDock->setObjectName("resultsDock");
    resultsDock->setWidget(results_);
    addDockWidget(Qt::BottomDockWidgetArea, resultsDock);
    tabifyDockWidget(probeDock, resultsDock);
    resultsDock->raise();
    // Inspecting a cell: its rank 0 trace in the timeline and the per-step table.
    connect(results_, &widgets::ResultsView::cellSelected, this, [this](const QString& id) {
        const QString trace = QDir(resultsDir_).filePath("cells/" + id + "/trace_rank0.json.gz");
        if (resultsData_) {
            inspector_->showCell(*resultsData_, id);
        }
        if (!id.isEmpty() && QFile::exists(trace)) {
            openTrace(trace);
        }
    });

    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("Open &matrix...", QKeySequence("Ctrl+M"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, "Open experiment matrix", "configs/experiments", "YAML (*.yaml *.yml)");
        if (!path.isEmpty()) {
            openMatrix(path);
        }
    });
    file->addAction("Open &trace...", QKeySequence::Open, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, "Open Chrome trace", resultsDir_,
                                         "Chrome traces (*.json *.json.gz);;All files (*)");
        if (!path.isEmpty()) {
            openTrace(path);
        }
    });
    file->addAction("&Compare fingerprinted runs...", QKeySequence("Ctrl+D"), this, [this] {
        const QString a =
            QFileDialog::getExistingDirectory(this, "Run A (holds fp_rank*.jsonl)", resultsDir_);
        const QString b =
            a.isEmpty() ? QString() : QFileDialog::getExistingDirectory(this, "Run B", a);
        if (!b.isEmpty()) {
            compareRuns(a, b);
        }
    });
    file->addAction("&Export report and figures...", QKeySequence("Ctrl+E"), this, [this] {
        const QString out = QFileDialog::getExistingDirectory(this, "Export into", resultsDir_);
        if (!out.isEmpty()) {
            exportReport(out);
        }
    });
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
    QMenu* tools = menuBar()->addMenu("&Tools");
    tools->addAction("Run &probe", QKeySequence("Ctrl+Shift+P"), this, &MainWindow::runProbe);
    QMenu* view = menuBar()->addMenu("&View");
    view->addAction(probeDock->toggleViewAction());
    view->addAction(diffDock->toggleViewAction());
    view->addAction(designerDock->toggleViewAction());
    view->addAction(monitorDock->toggleViewAction());
    QMenu* run = menuBar()->addMenu("&Run");
    run->addAction("&Start", QKeySequence("F5"), monitor_, &widgets::RunMonitor::start);
    run->addAction("&Pause after this cell", QKeySequence("F6"), monitor_,
                   &widgets::RunMonitor::pauseAfterCurrentCell);
    run->addAction("S&top", QKeySequence("Shift+F5"), monitor_, &widgets::RunMonitor::stop);
    restoreLayout();
    statusBar()->showMessage("Open a trace or a results directory");
}

void MainWindow::openResults(const QString& dir) {
    resultsDir_ = dir;
    statusBar()->showMessage(QString("Loading results %1 ...").arg(QDir(dir).absolutePath()));
    struct Loaded {
        report::ReportData data;
        QString error;
    };
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, dir] {
        const Loaded l = watcher->result();
        watcher->deleteLater();
        if (!l.error.isEmpty()) {
            statusBar()->showMessage(l.error);
            return;
        }
        resultsData_ = std::make_shared<report::ReportData>(l.data);
        results_->setData(l.data);
        statusBar()->showMessage(QString("Results %1: %2 cells").arg(dir).arg(l.data.cells.size()));
    });
    watcher->setFuture(QtConcurrent::run([dir] {
        Loaded l;
        try {
            store::ingest(dir, store::defaultDbPath(dir)); // idempotent; the GUI reads through WAL
            store::Database db(store::defaultDbPath(dir));
            l.data = report::loadReportData(db, QDir(dir).canonicalPath());
        } catch (const std::exception& e) {
            l.error = QString::fromStdString(e.what());
        }
        return l;
    }));
}

bool MainWindow::exportReport(const QString& outDir) {
    try {
        store::Database db(store::defaultDbPath(resultsDir_));
        const report::ReportData data =
            report::loadReportData(db, QDir(resultsDir_).canonicalPath());
        const QStringList files = widgets::writeReport(db, data, outDir) +
                                  results_->exportPlots(QDir(outDir).filePath("plots"));
        statusBar()->showMessage(QString("Exported %1 files to %2").arg(files.size()).arg(outDir));
        return true;
    } catch (const std::exception& e) {
        statusBar()->showMessage(QString::fromStdString(e.what()));
        return false;
    }
}

void MainWindow::openMatrix(const QString& path) {
    designer_->loadFile(path);
    statusBar()->showMessage(
        QString("Matrix %1: %2 cells").arg(path).arg(designer_->cells()->rowCount()));
}

void MainWindow::openTrace(const QString& path) {
    statusBar()->showMessage(QString("Parsing %1 ...").arg(path));
    auto* watcher = new QFutureWatcher<ParsedTrace>(this);
    connect(watcher, &QFutureWatcher<ParsedTrace>::finished, this, [this, watcher, path] {
        const ParsedTrace parsed = watcher->result();
        watcher->deleteLater();
        if (!parsed.error.isEmpty()) {
            statusBar()->showMessage(parsed.error);
            return;
        }
        steps_->setSummary(parsed.summary);
        timeline_->setData(parsed.timeline);
        statusBar()->showMessage(
            QString("%1: %2 steps").arg(path).arg(parsed.summary.steps.size()));
    });
    watcher->setFuture(QtConcurrent::run(parseTrace, path));
}

void MainWindow::compareRuns(const QString& dirA, const QString& dirB) {
    struct Loaded {
        determinism::DiffReport report;
        determinism::LoadedRuns runs;
        QString error;
    };
    statusBar()->showMessage(QString("Comparing %1 with %2 ...").arg(dirA, dirB));
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher] {
        const Loaded l = watcher->result();
        watcher->deleteLater();
        if (!l.error.isEmpty()) {
            statusBar()->showMessage(l.error);
            return;
        }
        diffView_->setRuns(l.report, l.runs);
        statusBar()->showMessage(l.report.summary);
    });
    watcher->setFuture(QtConcurrent::run([dirA, dirB] {
        Loaded l;
        try {
            l.runs = determinism::loadRuns(dirA, dirB);
            l.report = determinism::diff(l.runs);
        } catch (const std::exception& e) {
            l.error = QString::fromStdString(e.what());
        }
        return l;
    }));
}

void MainWindow::startRun() {
    monitor_->start();
}

void MainWindow::selectResultsCell(const QString& id) {
    results_->selectCell(id);
}

void MainWindow::runProbe() {
    probeView_->setBusy(true);
    probe::ProbeOptions options;
    options.rankProgram = runner::defaultRankProgram();
    if (!resultsDir_.isEmpty()) {
        options.resultsDir = resultsDir_;
    }
    auto* watcher = new QFutureWatcher<probe::ProbeReport>(this);
    connect(watcher, &QFutureWatcher<probe::ProbeReport>::finished, this, [this, watcher] {
        probeModel_->setReport(watcher->result());
        probeView_->setBusy(false);
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([options] { return probe::runProbe(options); }));
}

bool MainWindow::saveScreenshots(const QString& outDir) {
    QDir().mkpath(outDir);
    bool ok = grab().save(QDir(outDir).filePath("main.png"));
    ok = probeView_->grab().save(QDir(outDir).filePath("probe.png")) && ok;
    ok = diffView_->grab().save(QDir(outDir).filePath("determinism.png")) && ok;
    ok = designer_->grab().save(QDir(outDir).filePath("designer.png")) && ok;
    ok = timeline_->grab().save(QDir(outDir).filePath("timeline.png")) && ok;
    ok = monitor_->grab().save(QDir(outDir).filePath("run_monitor.png")) && ok;
    ok = results_->grab().save(QDir(outDir).filePath("results.png")) && ok;
    ok = inspector_->grab().save(QDir(outDir).filePath("cell_inspector.png")) && ok;
    return ok;
}

void MainWindow::restoreLayout() {
    QSettings settings("commprof", "workbench");
    restoreGeometry(settings.value("geometry").toByteArray());
    restoreState(settings.value("state").toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings("commprof", "workbench");
    settings.setValue("geometry", saveGeometry());
    settings.setValue("state", saveState());
    event->accept();
}

} // namespace commprof::workbench
