#pragma once
// The matrix designer: a YAML editor (highlighting, undo, the error marked at its line), the
// matrix as lists of models, layers and world sizes, the expanded cells, and per-pool
// feasibility bars for the selected cell or the worst one. Everything updates as the user
// types, debounced.

#include "feasibility/plan.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTableView;
class QTimer;
class QDoubleSpinBox;
class QCheckBox;

namespace commprof::models {
class CellTableModel;
}

namespace commprof::widgets {

class FeasibilityBars;
class YamlHighlighter;

class MatrixDesigner : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 300;
    explicit MatrixDesigner(QWidget* parent = nullptr);

    void loadFile(const QString& path);
    void setText(const QString& yaml, const QString& fileName);
    QPlainTextEdit* editor() const { return editor_; }
    models::CellTableModel* cells() const { return cells_; }
    FeasibilityBars* bars() const { return bars_; }
    QListWidget* worldSizes() const { return worldSizes_; }
    int errorLine() const;
    int errorColumn() const;
    QString errorText() const;
    // Budgets: explicit GiB, or auto (from the probe) when unchecked.
    void setBudgets(std::optional<double> hostGib, std::optional<double> deviceGib,
                    std::optional<int> gpus);
    void replanNow();

signals:
    void planChanged(const commprof::feasibility::Plan& plan);

private:
    void showCell(int row);
    QString fileName_;
    QPlainTextEdit* editor_;
    YamlHighlighter* highlighter_;
    QLabel* error_;
    QListWidget* models_;
    QListWidget* layers_;
    QListWidget* worldSizes_;
    QTableView* table_;
    models::CellTableModel* cells_;
    FeasibilityBars* bars_;
    QTimer* debounce_;
    QCheckBox* hostAuto_;
    QDoubleSpinBox* hostGib_;
    QCheckBox* deviceAuto_;
    QDoubleSpinBox* deviceGib_;
    feasibility::BudgetOverrides overrides_;
    // Read once: replanning on every pause in typing must not run nvidia-smi each time.
    std::optional<feasibility::MachineFacts> machine_;
};

} // namespace commprof::widgets
