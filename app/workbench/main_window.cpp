// SPDX-License-Identifier: GPL-3.0-or-later
// The window itself: views, docks, menus, layout, title. The file lifecycle is in
// main_window_files.cpp.

#include "main_window.h"

#include "about_dialog.h"
#include "cell_inspector_panel.h"
#include "code_editor.h"
#include "confirm_controller.h"
#include "diff_view.h"
#include "job_status.h"
#include "layout_helpers.h"
#include "matrix/matrix_text_edit.h"
#include "matrix_designer.h"
#include "message_bar.h"
#include "models/probe_model.h"
#include "models/run_controller.h"
#include "probe_view.h"
#include "report/recommendation_text.h"
#include "results_view.h"
#include "run_monitor.h"
#include "trace_inspector.h"
#include "whatif_view.h"
#include "workspaces.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

// The resources live in this static library: referencing them here keeps them linked in.
static void initResources() {
    Q_INIT_RESOURCE(commprof);
}

namespace commprof::workbench {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    initResources();
    setWindowIcon(QIcon(":/commprof/commprof.svg"));

    traceInspector_ = new widgets::TraceInspector(traceJobs_, this);
    timeline_ = traceInspector_->timeline();
    stepTable_ = traceInspector_->stepTable();
    steps_ = traceInspector_->steps();
    connect(traceInspector_, &widgets::TraceInspector::sliceSelected, this,
            [this](const QString& description) { statusBar()->showMessage(description, 10000); });
    connect(traceInspector_, &widgets::TraceInspector::loaded, this, &MainWindow::onTraceLoaded);
    connect(traceInspector_, &widgets::TraceInspector::loadFailed, this,
            [this](const QString& what, const QString& e) {
                reportError("Cannot open the trace " + QFileInfo(what).fileName(), e);
            });
    // The What if page replays the shown traces' DDP job, or says why they are none.
    whatIf_ = new widgets::WhatIfView(nullptr, this);
    connect(traceInspector_, &widgets::TraceInspector::ddpJobRead, whatIf_,
            &widgets::WhatIfView::setJob);
    connect(traceInspector_, &widgets::TraceInspector::ddpJobMissing, whatIf_,
            &widgets::WhatIfView::setUnavailable);
    connect(whatIf_, &widgets::WhatIfView::paramsFileChosen, traceInspector_,
            &widgets::TraceInspector::setParamsFile);
    // "Confirm on this job" runs here, for the job the page shows (after the page has it).
    confirm_ = new ConfirmController(whatIf_, this);
    connect(traceInspector_, &widgets::TraceInspector::ddpJobRead, confirm_,
            &ConfirmController::setJob);
    connect(traceInspector_, &widgets::TraceInspector::ddpJobMissing, confirm_,
            &ConfirmController::clear);
    messages_ = new widgets::MessageBar(this);

    designer_ = new widgets::MatrixDesigner(this);
    // The run started here (F5, F6, Shift+F5 and the monitor's buttons); the monitor shows it.
    run_ = new models::RunController(this);
    monitor_ = new widgets::RunMonitor(run_, this);
    diffView_ = new widgets::DiffView(this);
    inspector_ = new widgets::CellInspectorPanel(this);
    results_ = new widgets::ResultsView(this);
    probeModel_ = new models::ProbeModel(this);
    probeView_ = new widgets::ProbeView(this);
    probeView_->setModel(probeModel_);
    buildWorkspaces();

    jobStatus_ = new widgets::JobStatus(this);
    for (jobs::JobTracker* t : {traceJobs_, resultsJobs_, exportJobs_, probeJobs_, diffJobs_,
                                designer_->planner(), whatIf_->jobs()}) {
        jobStatus_->watch(t);
    }
    statusBar()->addPermanentWidget(jobStatus_);
    planStatus_ = new QLabel(this);
    // The plan's summary may be long; it must never widen the window past a small screen.
    planStatus_->setMinimumWidth(120);
    statusBar()->addPermanentWidget(planStatus_);

    connect(probeView_, &widgets::ProbeView::probeRequested, this, &MainWindow::runProbe);
    connectDesigner();
    connect(monitor_, &widgets::RunMonitor::outputChangeRequested, this,
            &MainWindow::chooseRunOutput);
    connect(run_, &models::RunController::finished, this, &MainWindow::onRunFinished);
    connect(results_, &widgets::ResultsView::cellSelected, this, &MainWindow::showResultsCell);
    // The cap study's "Apply to matrix": an edit of the designer's text, which its undo takes
    // back; the designer is shown with it. Whether the cap still holds is asked once an edit
    // has settled and parsed (a text that does not parse says neither), not at each keystroke.
    connect(results_, &widgets::ResultsView::applyCapRequested, this,
            &MainWindow::applyRecommendedCap);
    connect(designer_, &widgets::MatrixDesigner::planChanged, this,
            &MainWindow::dropCapWarningUnlessItHolds);

    // The menu bar in the order it shows; each menu is built where its actions are listed.
    buildFileMenu();
    buildEditMenu();
    buildViewMenu();
    buildRunMenu();
    buildToolsAndHelpMenus();
    const QSettings settings("commprof", "workbench");
    restoreGeometry(settings.value("geometry").toByteArray());
    workspaces_->restore(settings);
    updateTitle();
    statusBar()->showMessage("Open a results folder (Ctrl+O), a matrix (Ctrl+M) or a trace "
                             "(Ctrl+T)",
                             15000);
}

void MainWindow::connectDesigner() {
    connect(designer_, &widgets::MatrixDesigner::planChanged, this, [this] {
        monitor_->setPlan(designer_->plan());
        planStatus_->setText(designer_->summary());
        followMatrixWithOutput();
        updateTitle();
    });
    connect(designer_, &widgets::MatrixDesigner::modificationChanged, this,
            &MainWindow::updateTitle);
    connect(designer_, &widgets::MatrixDesigner::loadedWithError, this, [this](const QString& m) {
        messages_->warning("The matrix has an error",
                           m + "\nThe designer marks it (F8 goes there).");
    });
    connect(designer_, &widgets::MatrixDesigner::staleChanged, this,
            [this] { planStatus_->setText(designer_->summary()); });
    connect(designer_, &widgets::MatrixDesigner::planFailed, this,
            [this](const QString& m) { reportError("The matrix could not be planned", m); });
    connect(designer_, &widgets::MatrixDesigner::editFailed, this,
            [this](const QString& m) { messages_->warning("The matrix was not changed", m); });
}

void MainWindow::buildWorkspaces() {
    workspaces_ = new widgets::Workspaces(this);
    workspaces_->addWorkspace("design", "Design", designer_);
    workspaces_->addWorkspace("run", "Run", monitor_);
    workspaces_->addWorkspace("inspect", "Inspect", traceInspector_);
    workspaces_->addPane("inspect", "Step table and details", traceInspector_->lowerPane());
    workspaces_->addWorkspace("whatif", "What if", whatIf_);
    // The linked figures and the cell table, with the selected cell's figures beside them.
    QSplitter* results =
        widgets::makeSplitter(Qt::Horizontal, {{results_, 4}, {inspector_, 1}}, this);
    workspaces_->addWorkspace("results", "Results", results);
    workspaces_->addPane("results", "Cell inspector", inspector_);
    QSplitter* probe =
        widgets::makeSplitter(Qt::Horizontal, {{probeView_, 1}, {diffView_, 1}}, this);
    workspaces_->addWorkspace("probe", "Probe and determinism", probe);
    workspaces_->addPane("probe", "Determinism", diffView_);

    auto* centre = new QWidget(this);
    auto* centreLayout = widgets::bareLayout<QVBoxLayout>(centre, 0);
    centreLayout->addWidget(messages_);
    centreLayout->addWidget(workspaces_, 1);
    setCentralWidget(centre);
}

// Opening and saving: results, matrices, traces, jobs to record, runs to compare, exports.
void MainWindow::buildFileMenu() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&Open results...", QKeySequence::Open, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, "Open results folder", resultsDir_.isEmpty() ? "results" : resultsDir_);
        if (!dir.isEmpty()) {
            openResults(dir);
        }
    });
    recentMenu_ = file->addMenu("Open &recent results");
    rebuildRecentMenu();
    file->addAction("Re&load results", QKeySequence(Qt::CTRL | Qt::Key_R), this,
                    &MainWindow::reloadResults);
    file->addSeparator();
    file->addAction("Open &matrix...", QKeySequence("Ctrl+M"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, "Open experiment matrix",
            designer_->fileName().isEmpty() ? QString("configs/experiments")
                                            : QFileInfo(designer_->fileName()).path(),
            "YAML (*.yaml *.yml)");
        if (!path.isEmpty()) {
            openMatrix(path);
        }
    });
    showResultsMatrix_ = file->addAction("Show the &results' matrix", QKeySequence("Ctrl+Shift+M"),
                                         this, [this] { showResultsMatrix(); });
    showResultsMatrix_->setEnabled(false);
    file->addAction("&Save matrix", QKeySequence::Save, this, [this] { saveMatrix(); });
    file->addAction("Save matrix &as...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                    [this] { saveMatrixAs(); });
    file->addSeparator();
    file->addAction("Open &trace...", QKeySequence("Ctrl+T"), this, [this] {
        // Several files: the ranks of one job, stacked.
        const QStringList paths =
            QFileDialog::getOpenFileNames(this, "Open Chrome traces", resultsDir_,
                                          "Chrome traces (*.json *.json.gz);;All files (*)");
        if (!paths.isEmpty()) {
            openTraces(paths);
        }
    });
    file->addAction("Open trace &folder...", QKeySequence("Ctrl+Shift+T"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, "Open a folder of traces (a DDP job's, or a cell's)", resultsDir_);
        if (!dir.isEmpty()) {
            openTrace(dir);
        }
    });
    file->addAction("Record a &job...", this, &MainWindow::showRecordDialog);
    file->addAction("&Compare fingerprinted runs...", QKeySequence("Ctrl+D"), this, [this] {
        const QString a =
            QFileDialog::getExistingDirectory(this, "Run A (holds fp_rank*.jsonl)", resultsDir_);
        const QString b =
            a.isEmpty() ? QString() : QFileDialog::getExistingDirectory(this, "Run B", a);
        if (!b.isEmpty()) {
            compareRuns(a, b);
        }
    });
    file->addAction("&Export...", QKeySequence("Ctrl+E"), this, &MainWindow::showExportDialog);
    file->addSeparator();
    file->addAction("&Quit", QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);
}

void MainWindow::buildEditMenu() {
    // Undo and Redo of the matrix designer's edits (its own and the designer's, such as the cap
    // study's Apply to matrix), from any workspace.
    QMenu* edit = menuBar()->addMenu("&Edit");
    QTextDocument* matrixText = designer_->editor()->document();
    QAction* undo = edit->addAction("&Undo matrix edit", QKeySequence::Undo, designer_->editor(),
                                    &QPlainTextEdit::undo);
    QAction* redo = edit->addAction("&Redo matrix edit", QKeySequence::Redo, designer_->editor(),
                                    &QPlainTextEdit::redo);
    undo->setEnabled(matrixText->isUndoAvailable());
    redo->setEnabled(matrixText->isRedoAvailable());
    connect(matrixText, &QTextDocument::undoAvailable, undo, &QAction::setEnabled);
    connect(matrixText, &QTextDocument::redoAvailable, redo, &QAction::setEnabled);
}

// A key per workspace, then each workspace's panes, the trace's critical path and the reset.
void MainWindow::buildViewMenu() {
    viewMenu_ = menuBar()->addMenu("&View");
    const QStringList names = workspaces_->names();
    for (int i = 0; i < names.size(); ++i) {
        const QString name = names[i];
        viewMenu_->addAction(workspaces_->tabBar()->tabText(i) + " workspace",
                             QKeySequence(QString("Ctrl+%1").arg(i + 1)), this,
                             [this, name] { workspaces_->setCurrent(name); });
    }
    viewMenu_->addSeparator();
    for (const QString& name : names) {
        viewMenu_->addActions(workspaces_->paneActions(name));
    }
    viewMenu_->addSeparator();
    viewMenu_->addAction(traceInspector_->criticalPathAction());
    viewMenu_->addSeparator();
    viewMenu_->addAction("&Reset layout", QKeySequence("Ctrl+Shift+R"), this, [this] {
        workspaces_->resetCurrent();
        statusBar()->showMessage("Layout of this workspace reset", 3000);
    });
}

void MainWindow::buildRunMenu() {
    QMenu* run = menuBar()->addMenu("&Run");
    run->addAction("Choose &output folder...", this, &MainWindow::chooseRunOutput);
    // After a pause the same key resumes the run in its folder.
    QAction* start = run->addAction("&Start", QKeySequence("F5"), this, &MainWindow::startRun);
    connect(run, &QMenu::aboutToShow, start,
            [this, start] { start->setText(run_->paused() ? "&Resume" : "&Start"); });
    run->addAction("&Pause after this cell", QKeySequence("F6"), run_,
                   &models::RunController::pauseAfterCurrentCell);
    run->addAction("S&top", QKeySequence("Shift+F5"), run_, &models::RunController::stop);
}

void MainWindow::buildToolsAndHelpMenus() {
    QMenu* tools = menuBar()->addMenu("&Tools");
    tools->addAction("Run &probe", QKeySequence("Ctrl+Shift+P"), this, &MainWindow::runProbe);
    tools->addAction("Go to matrix &error", QKeySequence("F8"), designer_,
                     &widgets::MatrixDesigner::goToError);

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("&Documentation", QKeySequence::HelpContents, this,
                    &MainWindow::openDocumentation);
    help->addAction("&About commprof", this, [this] {
        auto* about = new AboutDialog(this);
        about->setAttribute(Qt::WA_DeleteOnClose);
        about->open();
    });
}

void MainWindow::openDocumentation() {
    const QString docs = documentationPath();
    if (docs.isEmpty()) {
        reportError("No documentation found",
                    "The docs folder is neither installed nor beside the program.");
        return;
    }
    // xdg-open, run here rather than through QDesktopServices, which reports only that it
    // started: without a browser or file manager it exits non-zero, and the user is told where
    // the documentation is instead of seeing nothing happen.
    const QString page = QFileInfo::exists(docs + "/workbench.md") ? docs + "/workbench.md" : docs;
    auto* opener = new QProcess(this);
    const auto failed = [this, docs](const QString& why) {
        reportError("The documentation could not be opened",
                    QString("%1. The documentation is in %2 (workbench.md describes this window).")
                        .arg(why, QDir::toNativeSeparators(docs)));
    };
    connect(opener, &QProcess::errorOccurred, this, [opener, failed](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            failed("xdg-open could not be started (is xdg-utils installed?)");
            opener->deleteLater();
        }
    });
    connect(
        opener, &QProcess::finished, this, [opener, failed](int code, QProcess::ExitStatus status) {
            if (status != QProcess::NormalExit || code != 0) {
                failed(QString("xdg-open found no program to show it (exit status %1)").arg(code));
            }
            opener->deleteLater();
        });
    opener->setProcessChannelMode(QProcess::ForwardedChannels);
    opener->start("xdg-open", {QUrl::fromLocalFile(page).toString()});
}

QString MainWindow::documentationPath() {
    const QDir bin(QCoreApplication::applicationDirPath());
    for (const QString& candidate :
         {bin.filePath("../share/doc/commprof"), bin.filePath("../../docs"),
          QStringLiteral(COMMPROF_SOURCE_DOCS)}) {
        if (QFileInfo(candidate + "/cli.md").exists()) {
            return QDir(candidate).canonicalPath();
        }
    }
    return {};
}

void MainWindow::updateTitle() {
    // The title names the matrix (with [*] for unsaved edits) and the results folder; with
    // neither of the user's, the trace shown (an untouched untitled designer is no matrix of
    // theirs: "untitled matrix" beside a trace named what was not open).
    const bool usersMatrix = !designer_->fileName().isEmpty() || designer_->isModified();
    const QString matrix = designer_->fileName().isEmpty()
                               ? QString("untitled matrix")
                               : QFileInfo(designer_->fileName()).fileName();
    QStringList parts;
    if (usersMatrix || (resultsDir_.isEmpty() && currentTrace_.isEmpty())) {
        parts << matrix + "[*]";
    }
    if (!resultsDir_.isEmpty()) {
        parts << QDir::toNativeSeparators(resultsDir_);
    } else if (!currentTrace_.isEmpty()) {
        parts << traceInspector_->shownName() + "[*]";
    }
    parts << "commprof workbench";
    setWindowTitle(parts.join(QString::fromUtf8(" \u2014 ")));
    setWindowModified(designer_->isModified());
}

bool MainWindow::maybeSaveMatrix(const QString& why) {
    if (!designer_->isModified()) {
        return true;
    }
    QMessageBox box(QMessageBox::Warning, "Unsaved matrix",
                    QString("The matrix %1 has unsaved changes.")
                        .arg(designer_->fileName().isEmpty()
                                 ? QString("(untitled)")
                                 : QFileInfo(designer_->fileName()).fileName()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setInformativeText(why);
    box.setDefaultButton(QMessageBox::Save);
    // Alt+S, Alt+D, Alt+C answer it from the keyboard.
    box.button(QMessageBox::Save)->setText("&Save");
    box.button(QMessageBox::Discard)->setText("&Discard");
    box.button(QMessageBox::Cancel)->setText("&Cancel");
    switch (box.exec()) {
    case QMessageBox::Save:
        return saveMatrix();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void MainWindow::reportError(const QString& title, const QString& text) {
    messages_->error(title, text);
}

bool MainWindow::attempt(const QString& title, const std::function<void()>& fn) {
    try {
        fn();
        return true;
    } catch (const std::exception& e) {
        reportError(title, QString::fromUtf8(e.what()));
        return false;
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (run_->running()) {
        const auto answer = QMessageBox::question(
            this, "A run is in progress",
            "Quitting stops the run: every rank of the running cell is ended and the cell is "
            "recorded as stopped. Quit anyway?");
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    if (!maybeSaveMatrix("Quitting discards them unless you save.")) {
        event->ignore();
        return;
    }
    QSettings settings("commprof", "workbench");
    settings.setValue("geometry", saveGeometry());
    workspaces_->save(settings);
    event->accept();
}

namespace {

constexpr const char* kCapWarning = "appliedCap"; // the message bar's key of the cap warning

// Lets what a page queued on showing run before it is grabbed: a resize queues the legends'
// placing and the cap study's strip fitting, which queues the strip's snap to whole lines, so
// one turn of the loop grabbed the cap study with its figure's title under the strip.
void settle() {
    for (int turn = 0; turn < 4; ++turn) {
        QApplication::processEvents();
    }
}

} // namespace

bool MainWindow::saveScreenshots(const QString& outDir) {
    QDir().mkpath(outDir);
    const QDir out(outDir);
    const QString shown = workspaces_->current();
    // The window as it is, then in each workspace: every one must fit the same size.
    bool ok = grab().save(out.filePath("workbench.png"));
    // Under a window manager, the screen as it shows the framed window (title bar included).
    if (frameGeometry().size() != size() && QGuiApplication::platformName() != "offscreen") {
        if (QScreen* s = screen()) {
            ok = s->grabWindow(0).save(out.filePath("screen.png")) && ok;
        }
    }
    for (const QString& name : workspaces_->names()) {
        workspaces_->setCurrent(name);
        settle();
        ok = grab().save(out.filePath("workbench_" + name + ".png")) && ok;
    }
    const std::initializer_list<std::tuple<QWidget*, const char*, const char*>> views{
        {probeView_, "probe", "probe.png"},           {diffView_, "probe", "determinism.png"},
        {designer_, "design", "designer.png"},        {traceInspector_, "inspect", "timeline.png"},
        {monitor_, "run", "run_monitor.png"},         {results_, "results", "results.png"},
        {inspector_, "results", "cell_inspector.png"}};
    for (const auto& [view, workspace, name] : views) {
        workspaces_->setCurrent(workspace);
        settle();
        ok = view->grab().save(out.filePath(name)) && ok;
    }
    // The results' other figure pages, where they hold something (the sweep's, the cap study's),
    // as the window shows them: workbench_results_collective_sweep.png and the like.
    workspaces_->setCurrent("results");
    QTabWidget* pages = results_->figurePages();
    const int page = pages->currentIndex();
    for (int i = 1; i < pages->count(); ++i) {
        if (pages->isTabVisible(i)) {
            pages->setCurrentIndex(i);
            settle();
            const QString slug = pages->tabText(i).toLower().replace(' ', '_');
            ok = grab().save(out.filePath("workbench_results_" + slug + ".png")) && ok;
        }
    }
    pages->setCurrentIndex(page);
    workspaces_->setCurrent(shown);
    return ok;
}

// The cap goes into the group's model entry: in `defaults` it would change every model. The
// entry is read by each hook and world size of the model: a cap advised otherwise for one of them
// is named in a warning that stays until closed, never overwritten unseen (the status bar's
// message was replaced by the next one, the plan's or a job's), and only while it holds: one
// warning however many applies (each added one), gone when the entry's cap is undone or changed.
void MainWindow::applyRecommendedCap(const analysis::CapGroup& g) {
    const QString cap = QString::number(*g.recommendedCapMb, 'g', 6);
    designer_->setModelValue(g.model, "bucket_cap_mb", cap);
    workspaces_->setCurrent("design");
    const auto& tuning = results_->data().tuning;
    const QString other = tuning ? report::otherAdviceOfModel(tuning->groups, g) : QString();
    if (!other.isEmpty() && capSetInMatrix(g.model, cap).value_or(false)) {
        appliedCap_ = {g.model, cap};
        messages_->warning(QString("Other groups of %1 were advised another cap").arg(g.model),
                           QString("bucket_cap_mb: %1 is now %2's for each hook and world size "
                                   "it runs (Edit > Undo takes it back); advised otherwise: %3")
                               .arg(cap, g.model, other),
                           kCapWarning);
    }
}

std::optional<bool> MainWindow::capSetInMatrix(const QString& model, const QString& cap) const {
    const QString text = designer_->editor()->toPlainText();
    try {
        // Setting it again would change nothing: the entry holds the cap as the apply wrote it.
        const matrix::TextEdit edit =
            matrix::modelValueEdit(text, designer_->fileName(), model, "bucket_cap_mb", cap);
        return matrix::applied(text, edit) == text;
    } catch (const matrix::MatrixError& e) {
        if (e.key == "models") {
            return false; // no entry of the model any more
        }
        return std::nullopt; // a text being typed that does not parse says neither
    }
}

void MainWindow::dropCapWarningUnlessItHolds() {
    if (appliedCap_.first.isEmpty()) {
        return;
    }
    if (!capSetInMatrix(appliedCap_.first, appliedCap_.second).value_or(true)) {
        messages_->dismiss(kCapWarning);
        appliedCap_ = {};
    }
}

} // namespace commprof::workbench
