// SPDX-License-Identifier: GPL-3.0-or-later
// The file lifecycle of the main window: results folders, matrices, traces, export, runs.
// Everything slow runs as a background job; every failure ends up in front of the user.

#include "main_window.h"

#include "cell_inspector_panel.h"
#include "code_editor.h"
#include "determinism/divergence.h"
#include "diff_view.h"
#include "export_dialog.h"
#include "matrix/yaml_input.h"
#include "matrix_designer.h"
#include "message_bar.h"
#include "models/probe_model.h"
#include "models/results_cell_model.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "models/step_table_model.h"
#include "output_folder_dialog.h"
#include "probe/probe.h"
#include "probe_view.h"
#include "record_dialog.h"
#include "result_plots.h"
#include "results/results_folder.h"
#include "results_view.h"
#include "runner/rank_program.h"
#include "store/ingest.h"
#include "store/open_results.h"
#include "trace_inspector.h"
#include "workspaces.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include <utility>

namespace commprof::workbench {
namespace {

QString nameOf(const QString& path) {
    return QFileInfo(path).fileName();
}

// The cell a results folder opens on: the complete cell where communication costs the most
// (the one worth looking at first), else the first cell that ran.
QString cellToOpenOn(const report::ReportData& data) {
    const store::CellRow* worst = nullptr;
    for (const auto& c : data.cells) {
        if (c.complete() && c.commOverheadFraction &&
            (!worst || *c.commOverheadFraction > *worst->commOverheadFraction)) {
            worst = &c;
        }
    }
    if (worst) {
        return worst->id;
    }
    const auto cells = widgets::axisCells(data);
    return cells.empty() ? QString() : cells.front()->id;
}

// The file a run was started from, to tell whether it still holds the run's matrix; any file
// that cannot be read as a matrix (gone, a FIFO, too large) simply does not.
QString readText(const QString& path) {
    try {
        return QString::fromUtf8(matrix::readYamlFile(path));
    } catch (const std::exception&) {
        return {};
    }
}

} // namespace

struct MainWindow::LoadedResults {
    report::ReportData data;
    results::RunMatrix matrix;
    bool sourceHoldsMatrix = false; // the file the run was started from still says the same
    store::IngestSummary ingested;
    QString note; // the folder could not be written: what was read is in memory only
};

void MainWindow::openResults(const QString& dir) {
    const QString abs = QDir(dir).absolutePath();
    const results::FolderCheck check = results::checkResultsFolder(abs);
    if (!check.ok) {
        QMessageBox::warning(this, "Not a results folder", check.reason);
        return;
    }
    resultsJobs_->start(
        "Opening results " + nameOf(abs),
        [abs](const jobs::JobContext& job) {
            LoadedResults l;
            // Only what changed is read; one transaction per cell, so a cancel leaves a
            // consistent store.
            const store::OpenedResults opened = store::openResults(
                abs, store::defaultDbPath(abs), [&job](int done, int total, const QString& id) {
                    job.throwIfCancelled();
                    job.progress(done, total, id);
                });
            l.ingested = opened.ingested;
            l.note = opened.note;
            l.data = report::loadReportData(*opened.db, QDir(abs).canonicalPath());
            l.matrix = results::matrixOfRun(abs);
            l.sourceHoldsMatrix =
                !l.matrix.sourceFile.isEmpty() && readText(l.matrix.sourceFile) == l.matrix.yaml;
            return l;
        },
        [this, abs](const LoadedResults& l) { onResultsLoaded(abs, l); },
        [this, abs](const QString& e) { reportError("Cannot open results " + abs, e); });
}

bool MainWindow::showResultsMatrix() {
    if (resultsMatrixYaml_.isEmpty() ||
        !maybeSaveMatrix("Showing the results' matrix replaces the text in the editor.")) {
        return false;
    }
    designer_->setText(resultsMatrixYaml_, resultsMatrixFile_);
    runOutputChosen_ = false; // chosen for the matrix just replaced
    followMatrixWithOutput();
    workspaces_->setCurrent("design");
    return true;
}

void MainWindow::onResultsLoaded(const QString& dir, const LoadedResults& l) {
    const bool same = dir == resultsDir_;
    const QString keep = same ? results_->selectedCell() : QString();
    resultsDir_ = dir;
    resultsData_ = std::make_shared<const report::ReportData>(l.data);
    rememberResults(dir);
    results_->setData(l.data);
    if (!std::exchange(stayInView_, false) && !same) {
        workspaces_->setCurrent("results");
    }
    if (!same) {
        resultsMatrixYaml_ = l.matrix.yaml;
        resultsMatrixFile_ = l.sourceHoldsMatrix ? l.matrix.sourceFile : QString();
        showResultsMatrix_->setEnabled(!resultsMatrixYaml_.isEmpty());
    }
    // The designer holds what Start (F5) runs. A matrix the user opened or typed stays there:
    // replacing it silently would make F5 start the results' study instead. An untitled,
    // untouched designer (nothing of the user's) shows the results' matrix, as the file it
    // came from when that file still says the same, so Save writes there.
    const bool usersOwn = !designer_->fileName().isEmpty() || designer_->isModified();
    bool showsResults =
        !resultsMatrixYaml_.isEmpty() && designer_->editor()->toPlainText() == resultsMatrixYaml_;
    if (!same && !resultsMatrixYaml_.isEmpty() && !showsResults) {
        if (!usersOwn) {
            designer_->setText(resultsMatrixYaml_, resultsMatrixFile_);
            showsResults = true;
        } else {
            messages_->show(
                widgets::MessageBar::Severity::Information, "The designer keeps your matrix",
                QString("%1 stays in the designer, so Start (F5) runs it, not the matrix these "
                        "results were run from. File > Show the results' matrix (Ctrl+Shift+M) "
                        "puts theirs there.")
                    .arg(designer_->fileName().isEmpty() ? QString("The edited matrix")
                                                         : nameOf(designer_->fileName())));
        }
    }
    followMatrixWithOutput();
    // The run monitor lists the folder's cells as the folder records them, not as pending.
    QHash<QString, models::RunStateModel::RecordedCell> recorded;
    for (const store::CellRow& c : l.data.cells) {
        recorded.insert(c.id, {c.status, c.reasons.join("; ")});
    }
    run_->showRecorded(dir, recorded);
    const QString open =
        !keep.isEmpty() && results_->model()->rowOf(keep) >= 0 ? keep : cellToOpenOn(l.data);
    if (!open.isEmpty()) {
        results_->selectCell(open);
    }
    updateTitle();
    statusBar()->showMessage(QString("Results %1: %2 cells (%3 complete)%4")
                                 .arg(QDir::toNativeSeparators(dir))
                                 .arg(l.data.cells.size())
                                 .arg(l.ingested.complete)
                                 .arg(l.note.isEmpty() ? QString() : "; " + l.note),
                             10000);
    emit resultsOpened(dir);
}

void MainWindow::reloadResults() {
    if (resultsDir_.isEmpty()) {
        statusBar()->showMessage("No results folder is open", 5000);
        return;
    }
    openResults(resultsDir_);
}

void MainWindow::showResultsCell(const QString& id) {
    if (resultsData_) {
        inspector_->showCell(*resultsData_, id);
    }
    const QString cell = QDir(resultsDir_).filePath("cells/" + id);
    if (!id.isEmpty() && QFile::exists(cell + "/trace_rank0.json.gz")) {
        traceInspector_->openCell(cell); // every rank, stacked
    } else {
        // Never leave another cell's trace on screen under this cell's name.
        traceInspector_->clear();
        currentTrace_.clear();
        if (!id.isEmpty()) {
            statusBar()->showMessage(QString("%1 has no trace").arg(id), 5000);
        }
    }
}

void MainWindow::selectResultsCell(const QString& id) {
    results_->selectCell(id);
}

QStringList MainWindow::recentResults() const {
    return QSettings("commprof", "workbench").value("recentResults").toStringList();
}

void MainWindow::rememberResults(const QString& dir) {
    QStringList recent = recentResults();
    recent.removeAll(dir);
    recent.prepend(dir);
    QSettings("commprof", "workbench").setValue("recentResults", recent.mid(0, kRecentMax));
    rebuildRecentMenu();
}

// A recent folder that is gone (or no longer a results folder) leaves the list as it fails:
// offered again, it would only fail again.
void MainWindow::openRecentResults(const QString& dir) {
    if (const results::FolderCheck check = results::checkResultsFolder(dir); !check.ok) {
        QStringList recent = recentResults();
        recent.removeAll(dir);
        QSettings("commprof", "workbench").setValue("recentResults", recent);
        // Not from inside the menu's own action, which the rebuild deletes.
        QMetaObject::invokeMethod(this, &MainWindow::rebuildRecentMenu, Qt::QueuedConnection);
        reportError("Cannot open a recent results folder",
                    check.reason + "\nIt was removed from File > Open recent results.");
        return;
    }
    openResults(dir);
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = recentResults();
    for (const QString& dir : recent) {
        recentMenu_->addAction(QDir::toNativeSeparators(dir), this,
                               [this, dir] { openRecentResults(dir); });
    }
    recentMenu_->setEnabled(!recent.isEmpty());
}

bool MainWindow::openMatrix(const QString& path) {
    if (!maybeSaveMatrix("Opening another matrix replaces the text in the editor.") ||
        !attempt("Cannot open matrix", [&] { designer_->loadFile(path); })) {
        return false;
    }
    statusBar()->showMessage("Matrix " + QDir::toNativeSeparators(path), 5000);
    workspaces_->setCurrent("design");
    return true;
}

bool MainWindow::saveMatrix() {
    return saveMatrixAs(designer_->fileName()); // untitled: asks where, as Save as
}

bool MainWindow::saveMatrixAs(const QString& path) {
    QString target = path;
    if (target.isEmpty()) {
        // An untitled matrix is offered under its own name, as a .yaml that Open then lists.
        const auto plan = designer_->plan();
        const QString name =
            plan && !plan->matrix.name.isEmpty() ? plan->matrix.name : QString("matrix");
        QFileDialog dialog(this, "Save matrix as");
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setNameFilter("YAML (*.yaml *.yml)");
        dialog.setDefaultSuffix("yaml");
        dialog.selectFile(designer_->fileName().isEmpty()
                              ? QDir("configs/experiments").absoluteFilePath(name + ".yaml")
                              : designer_->fileName());
        if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) {
            return false;
        }
        target = dialog.selectedFiles().first();
        if (QFileInfo(target).suffix().isEmpty()) {
            target += ".yaml";
        }
    }
    if (!attempt("Cannot save the matrix", [&] { designer_->saveTo(target); })) {
        return false;
    }
    statusBar()->showMessage("Saved " + QDir::toNativeSeparators(target), 5000);
    updateTitle();
    return true;
}

void MainWindow::openTrace(const QString& path) {
    // A trace of its own is no cell of the open results: no cell stays selected beside it.
    results_->table()->clearSelection();
    workspaces_->setCurrent("inspect");
    if (QFileInfo(path).isDir()) {
        traceInspector_->openFolder(path);
    } else {
        traceInspector_->openTrace(path);
    }
}

void MainWindow::openTraces(const QStringList& files) {
    results_->table()->clearSelection();
    workspaces_->setCurrent("inspect");
    traceInspector_->openFiles(files);
}

void MainWindow::onTraceLoaded(const QString& primaryTrace, const QStringList& warnings) {
    currentTrace_ = primaryTrace;
    if (!warnings.isEmpty()) {
        messages_->warning("The trace " + nameOf(primaryTrace) + " is damaged",
                           warnings.join("\n") +
                               "\nThe timeline and the step table show only what was kept.");
    }
    statusBar()->showMessage(
        QString("%1: %2 steps").arg(nameOf(primaryTrace)).arg(steps_->rowCount() - 1), 5000);
    updateTitle();
    emit traceShown(primaryTrace);
}

void MainWindow::showRecordDialog() {
    auto* dialog = new widgets::RecordDialog(
        QDir::current().filePath("commprof-record-" +
                                 QDateTime::currentDateTimeUtc().toString("yyyyMMdd-HHmmss")),
        this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &widgets::RecordDialog::recorded, this, [this](const QString& dir) {
        openTrace(dir);
        workspaces_->setCurrent("whatif");
    });
    dialog->open();
}

void MainWindow::showExportDialog() {
    if (!resultsData_) {
        reportError("Nothing to export", "Open a results folder first (File > Open results).");
        return;
    }
    auto* dialog = new widgets::ExportDialog(QDir(resultsDir_).filePath("report"), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setOptions(exportOptions_);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        exportOptions_ = dialog->options();
        exportReport(dialog->outDir(), exportOptions_);
    });
    dialog->open();
}

void MainWindow::exportReport(const QString& outDir, const widgets::ExportOptions& options) {
    if (!resultsData_) {
        reportError("Nothing to export", "Open a results folder first (File > Open results).");
        return;
    }
    const auto data = resultsData_;
    const QString dir = resultsDir_;
    const auto fail = [this, outDir](const QString& e) {
        reportError("Export to " + QDir::toNativeSeparators(outDir) + " failed", e);
    };
    // The tables read the store: off the GUI thread. The figures draw with a widget: on the
    // GUI thread, one per turn of the event loop.
    exportJobs_->start(
        "Exporting tables",
        [data, dir, outDir, options](const jobs::JobContext&) {
            if (!options.tables) {
                return QStringList{};
            }
            store::Database db(store::defaultDbPath(dir));
            return widgets::writeTables(db, *data, outDir);
        },
        [this, data, outDir, options, fail](const QStringList& tables) {
            auto written = std::make_shared<QStringList>(tables);
            const auto& figures = widgets::reportFigures();
            exportJobs_->startSteps(
                "Exporting figures", int(figures.size()),
                [data, outDir, options, written, &figures](int i) {
                    if (figures[std::size_t(i)].appliesTo(*data)) {
                        *written << widgets::writeFigure(figures[std::size_t(i)], *data, outDir,
                                                         options);
                    }
                },
                [this, written, outDir] {
                    statusBar()->showMessage(QString("Exported %1 files to %2")
                                                 .arg(written->size())
                                                 .arg(QDir::toNativeSeparators(outDir)),
                                             10000);
                },
                fail);
        },
        fail);
}

void MainWindow::compareRuns(const QString& dirA, const QString& dirB) {
    workspaces_->setCurrent("probe");
    struct Loaded {
        determinism::DiffReport report;
        determinism::LoadedRuns runs;
    };
    diffJobs_->start(
        "Comparing " + nameOf(dirA) + " with " + nameOf(dirB),
        [dirA, dirB](const jobs::JobContext&) {
            Loaded l;
            l.runs = determinism::loadRuns(dirA, dirB);
            l.report = determinism::diff(l.runs);
            return l;
        },
        [this](const Loaded& l) {
            diffView_->setRuns(l.report, l.runs);
            statusBar()->showMessage(l.report.summary, 10000);
        },
        [this, dirA, dirB](const QString& e) {
            reportError(QString("Cannot compare %1 with %2").arg(dirA, dirB), e);
        });
}

void MainWindow::runProbe() {
    workspaces_->setCurrent("probe");
    probeView_->setBusy(true);
    probe::ProbeOptions options;
    options.rankProgram = runner::defaultRankProgram();
    if (!resultsDir_.isEmpty()) {
        options.resultsDir = resultsDir_;
    }
    probeJobs_->start(
        "Probing this machine",
        [options](const jobs::JobContext&) { return probe::runProbe(options); },
        [this](const probe::ProbeReport& r) { probeModel_->setReport(r); },
        [this](const QString& e) { reportError("The probe failed", e); });
    // Idle again, whether done, failed or cancelled (a newer probe keeps it busy).
    connect(
        probeJobs_, &jobs::JobTracker::finished, probeView_,
        [this] { probeView_->setBusy(probeJobs_->running()); }, Qt::SingleShotConnection);
}

// The run's folder follows the matrix the designer shows: the open results' folder while it
// shows their matrix (Start resumes them), else results/NAME. A folder the user chose stays
// while the designer holds the matrix file it was chosen for: another matrix never shows
// a study's records as its own cells.
void MainWindow::followMatrixWithOutput() {
    if (runOutputChosen_ && designer_->fileName() == runOutputChosenFor_) {
        return;
    }
    runOutputChosen_ = false;
    const auto plan = designer_->plan();
    const bool showsResults = !resultsDir_.isEmpty() && !resultsMatrixYaml_.isEmpty() &&
                              designer_->editor()->toPlainText() == resultsMatrixYaml_;
    if (showsResults) {
        run_->setOutput(resultsDir_, runner::defaultRankProgram());
    } else if (plan) {
        run_->setOutput(QDir("results").absoluteFilePath(plan->matrix.name),
                        runner::defaultRankProgram());
    }
}

void MainWindow::setRunOutput(const QString& dir) {
    runOutputChosen_ = true;
    runOutputChosenFor_ = designer_->fileName();
    run_->setOutput(dir, runner::defaultRankProgram());
}

void MainWindow::chooseRunOutput() {
    widgets::OutputFolderDialog dialog(run_->outputDir(), run_->plan(), this);
    if (dialog.exec() == QDialog::Accepted && !dialog.folder().isEmpty()) {
        setRunOutput(dialog.folder());
    }
}

void MainWindow::startRun() {
    const QString out = run_->outputDir();
    if (out.isEmpty()) {
        chooseRunOutput();
        if (run_->outputDir().isEmpty()) {
            return;
        }
    }
    // A run writes into a new folder or continues a results folder of its matrix; it never
    // scribbles into some other folder that happens to be there.
    if (const QString refusal = runner::folderRefusal(run_->outputDir(), run_->plan().get());
        !refusal.isEmpty()) {
        QMessageBox::warning(this, "The run cannot write there",
                             refusal + " (Run > Choose output folder).");
        return;
    }
    if (!designer_->errorText().isEmpty()) {
        reportError("The matrix has an error",
                    designer_->errorText() + "\nThe run uses the last plan that worked.");
    }
    if (!designer_->plan() || designer_->plan()->cells.empty()) {
        reportError("Nothing to run", "The matrix has no cells yet.");
        return;
    }
    workspaces_->setCurrent("run");
    run_->start();
}

void MainWindow::onRunFinished(const runner::RunSummary& summary, const QString& outDir) {
    // A refused run wrote nothing (the monitor says why); a paused one is resumed from the
    // monitor, which stays in view.
    if (!summary.refused.isEmpty()) {
        return;
    }
    if (run_->paused() && !run_->stoppedByUser()) {
        statusBar()->showMessage("Run paused; Run > Resume (F5) continues it", 10000);
        return;
    }
    // The run's results, opened when it ends (ingest runs as part of opening). After a Stop
    // the monitor stays in view, with Resume beside the log that says what stopped: the
    // results are a click away (Results), not a jump.
    stayInView_ = run_->stoppedByUser();
    if (stayInView_) {
        statusBar()->showMessage("Run stopped; its results are open under Results, and Run > "
                                 "Resume (F5) continues it",
                                 10000);
    }
    openResults(outDir);
}

} // namespace commprof::workbench
