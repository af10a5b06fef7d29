// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The matrix designer: a YAML editor (line numbers, highlighting, undo, the error marked at its
// line), the matrix as lists of models, layers and world sizes, the expanded cells (lazy,
// sortable, filterable; infeasible rows tinted), and per-pool feasibility bars for the selected
// cell or the worst one. Planning runs off the GUI thread, debounced after each edit, so a
// matrix of 100k cells never stalls typing; a newer edit makes an older plan stale.

#include "feasibility/plan.h"
#include "jobs/job_tracker.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QListWidget;
class QTableView;
class QTimer;

namespace commprof::models {
class CellTableModel;
}

namespace commprof::widgets {

class CodeEditor;
class FeasibilityBars;
class YamlHighlighter;

class MatrixDesigner : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 300;
    explicit MatrixDesigner(QWidget* parent = nullptr);

    // Reads a matrix file into the editor; throws std::runtime_error naming the file when it
    // cannot be read (the editor is then left as it was).
    void loadFile(const QString& path);
    // Shows a text; fileName is what errors name and where Save writes (empty: untitled).
    void setText(const QString& yaml, const QString& fileName);
    // Writes the editor's text to path atomically; path becomes the file. Throws on failure.
    void saveTo(const QString& path);
    QString fileName() const { return fileName_; }
    bool isModified() const;

    CodeEditor* editor() const { return editor_; }
    models::CellTableModel* cells() const { return cells_; }
    QTableView* cellTable() const { return table_; }
    QLineEdit* cellFilter() const { return filter_; }
    FeasibilityBars* bars() const { return bars_; }
    QListWidget* worldSizes() const { return worldSizes_; }
    QCheckBox* hostAuto() const { return hostAuto_; }
    QCheckBox* deviceAuto() const { return deviceAuto_; }
    QDoubleSpinBox* hostBudget() const { return hostGib_; }
    jobs::JobTracker* planner() const { return planner_; }
    std::shared_ptr<const feasibility::Plan> plan() const;

    int errorLine() const;
    int errorColumn() const;
    QString errorText() const;
    // "33 cells: 30 feasible, 3 skipped_infeasible" for the current plan; while the text has an
    // error, said to be the last good plan's.
    QString summary() const;
    // The text has an error: the cells, lists and bars shown are the last good plan's.
    bool isStale() const { return stale_; }
    QString selectedCell() const;
    void selectCell(const QString& cellId);

    QPushButton* addModelButton() const { return addModel_; }

    // Budgets: explicit GiB, or auto (from this machine) when nullopt; they stand above the
    // matrix's own `budget:`, as `--host-budget-gib` does. Budgets the user sets in the boxes are
    // written to the matrix's `budget:` instead, so they are saved and run with it.
    void setBudgets(std::optional<double> hostGib, std::optional<double> deviceGib,
                    std::optional<int> gpus);
    // Plans the editor's text now, off the GUI thread (cancelling any plan in flight).
    void replanNow();
    // Brings the current error into view and puts the cursor on it.
    void goToError();
    // Adds an entry for the TorchScript module `ptFile` (made by `commprof model export`) to the
    // matrix's models, at the input its description was measured at; the plan then sizes it
    // from the description. Says why not through editFailed.
    void addTorchScriptModel(const QString& ptFile);
    // Sets the model entry `model`'s `key` to `value`, as one step the editor can undo: that
    // model's cells change, no other's. Says why not through editFailed.
    void setModelValue(const QString& model, const QString& key, const QString& value);

signals:
    void planChanged(std::shared_ptr<const commprof::feasibility::Plan> plan);
    void modificationChanged(bool modified);
    void fileNameChanged(const QString& fileName);
    // A matrix just loaded (file or results) does not parse: worth more than the inline mark.
    void loadedWithError(const QString& message);
    // An error the YAML did not cause (the planner itself failed): for the message bar.
    void planFailed(const QString& message);
    // The shown plan became the last good one (an error), or current again.
    void staleChanged(bool stale);
    // An edit the designer was asked to make to the text could not be made, and why.
    void editFailed(const QString& message);

private:
    struct Planned;
    void makeEditorAndLists();
    void makeCellTable();
    void makeBudgets();
    void connectEdits();
    void layOut();
    void applyPlan(const Planned& planned);
    void showError(int line, int column, const QString& message, bool reveal);
    void showCellAt(int row);
    void budgetsEdited();
    void showResolvedBudgets();
    void setStale(bool stale);
    bool writeBudgetsToText();

    QString fileName_;
    CodeEditor* editor_;
    YamlHighlighter* highlighter_;
    QLabel* error_;
    QListWidget* models_;
    QPushButton* addModel_;
    QListWidget* layers_;
    QListWidget* worldSizes_;
    QLineEdit* filter_;
    QTableView* table_;
    models::CellTableModel* cells_;
    FeasibilityBars* bars_;
    QTimer* debounce_;
    QCheckBox* hostAuto_;
    QDoubleSpinBox* hostGib_;
    QCheckBox* deviceAuto_;
    QDoubleSpinBox* deviceGib_;
    jobs::JobTracker* planner_ = new jobs::JobTracker(this);
    feasibility::BudgetOverrides overrides_;
    // Read once, off the GUI thread: replanning on every pause in typing must not run
    // nvidia-smi each time.
    std::optional<feasibility::MachineFacts> machine_;
    QString selectedId_;
    int worstCell_ = -1;
    int feasibleCount_ = 0;
    bool revealNextError_ = false;
    bool sizedColumns_ = false;
    bool stale_ = false;
};

} // namespace commprof::widgets
