// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix_designer.h"

#include "code_editor.h"
#include "feasibility_bars.h"
#include "files/safe_file.h"
#include "flagged_row_delegate.h"
#include "layout_helpers.h"
#include "matrix/matrix_text_edit.h"
#include "matrix/model_description.h"
#include "matrix/yaml_input.h"
#include "models/cell_table_model.h"
#include "spec/mapped.h"
#include "spec/units.h"
#include "yaml_highlighter.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextCursor>
#include <QTimer>
#include <QVBoxLayout>

#include <stdexcept>

namespace commprof::widgets {
namespace {

constexpr int kMaxReasonPx = 420; // the reason's widest: a long one is in the tooltip

QDoubleSpinBox* gibBox(QWidget* parent) {
    auto* b = new QDoubleSpinBox(parent);
    b->setRange(0.0, 65536);
    b->setDecimals(2);
    b->setSuffix(" GiB");
    b->setEnabled(false);
    // A figure typed digit by digit is one edit of the text, made when it is complete.
    b->setKeyboardTracking(false);
    return b;
}

QListWidget* shortList(QWidget* parent) {
    auto* l = new QListWidget(parent);
    l->setMinimumHeight(24);
    l->setMaximumHeight(64);
    l->setTextElideMode(Qt::ElideRight);
    l->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // elided, the whole text as tooltip
    l->setResizeMode(QListView::Adjust);
    return l;
}

// An item that may be elided, with its whole text as its tooltip.
void addItemWithTip(QListWidget& list, const QString& text) {
    (new QListWidgetItem(text, &list))->setToolTip(text);
}

// One step on the editor's undo stack, the rest of the text and the cursor left as they are.
void applyEdit(QTextDocument* document, const matrix::TextEdit& edit) {
    QTextCursor cursor(document);
    cursor.setPosition(edit.from);
    cursor.setPosition(edit.from + edit.length, QTextCursor::KeepAnchor);
    cursor.insertText(edit.text);
}

} // namespace

// What a plan job hands back: the plan, or the YAML's error with its place.
struct MatrixDesigner::Planned {
    std::shared_ptr<const feasibility::Plan> plan;
    std::vector<int> order;
    int worst = -1;
    int feasible = 0;
    feasibility::MachineFacts machine;
    int errorLine = 0;
    int errorColumn = 0;
    QString error;
};

MatrixDesigner::MatrixDesigner(QWidget* parent) : QWidget(parent) {
    makeEditorAndLists();
    makeCellTable();
    makeBudgets();
    connectEdits();
    layOut();
}

// The YAML editor with its error line, and the lists that summarise the matrix.
void MatrixDesigner::makeEditorAndLists() {
    editor_ = new CodeEditor(this);
    highlighter_ = new YamlHighlighter(editor_->document());
    error_ = new QLabel(this);
    error_->setStyleSheet("color: #be1e1e");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    connect(error_, &QLabel::linkActivated, this, &MatrixDesigner::goToError);
    models_ = shortList(this);
    addModel_ = new QPushButton("Add TorchScript model…", this);
    addModel_->setToolTip("Add a module made by `commprof model export` to the models, sized "
                          "from its description");
    connect(addModel_, &QPushButton::clicked, this, [this] {
        const QString start = fileName_.isEmpty() ? QString() : QFileInfo(fileName_).absolutePath();
        const QString file = QFileDialog::getOpenFileName(
            this, "Add a TorchScript model", start, "TorchScript modules (*.pt);;All files (*)");
        if (!file.isEmpty()) {
            addTorchScriptModel(file);
        }
    });
    layers_ = shortList(this);
    worldSizes_ = shortList(this);
    worldSizes_->setFlow(QListView::LeftToRight); // "1 2 4 8" on one line
    worldSizes_->setWrapping(true);
    worldSizes_->setSpacing(2);
}

// The planned cells, filterable, as wide as what they hold.
void MatrixDesigner::makeCellTable() {
    cells_ = new models::CellTableModel(this);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText("Filter cells (id or layer)");
    filter_->setClearButtonEnabled(true);
    table_ = new QTableView(this);
    table_->setModel(cells_);
    makeRowTable(*table_);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    // Columns as wide as what they hold (see onPlanned): "why not" is often empty and must not
    // take the width the ids need.
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->setItemDelegate(new FlaggedRowDelegate(models::CellTableModel::InfeasibleRole, table_));
}

// The feasibility bars and the memory budgets per pool, read from this machine until set.
void MatrixDesigner::makeBudgets() {
    bars_ = new FeasibilityBars(this);
    hostAuto_ = new QCheckBox("auto", this);
    hostAuto_->setChecked(true);
    hostAuto_->setToolTip("From this machine: available memory (or the cgroup limit) minus the "
                          "matrix's reserve");
    deviceAuto_ = new QCheckBox("auto", this);
    deviceAuto_->setChecked(true);
    deviceAuto_->setToolTip("From this machine: the smallest visible GPU's memory");
    hostGib_ = gibBox(this);
    deviceGib_ = gibBox(this);
}

// An edit replans after a pause; a budget, the filter or a picked row act at once.
void MatrixDesigner::connectEdits() {
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(editor_, &QPlainTextEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
    connect(debounce_, &QTimer::timeout, this, &MatrixDesigner::replanNow);
    connect(editor_->document(), &QTextDocument::modificationChanged, this,
            &MatrixDesigner::modificationChanged);
    for (QCheckBox* c : {hostAuto_, deviceAuto_}) {
        connect(c, &QCheckBox::toggled, this, &MatrixDesigner::budgetsEdited);
    }
    for (QDoubleSpinBox* b : {hostGib_, deviceGib_}) {
        connect(b, &QDoubleSpinBox::valueChanged, this, &MatrixDesigner::budgetsEdited);
    }
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        cells_->setFilter(text);
        selectCell(selectedId_);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) {
                    const int i = cells_->planIndexAt(current.row());
                    selectedId_ = i >= 0 ? cells_->plan().cells[std::size_t(i)].cell.id : QString();
                }
                showCellAt(current.isValid() ? current.row() : -1);
            });
}

// The editor takes the width, the lists a column beside it; the cells and the bars below.
void MatrixDesigner::layOut() {
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow("models", models_);
    form->addRow("", addModel_);
    form->addRow("layers", layers_);
    form->addRow("world sizes", worldSizes_);
    auto* host = new QHBoxLayout;
    host->addWidget(hostGib_, 1);
    host->addWidget(hostAuto_);
    auto* device = new QHBoxLayout;
    device->addWidget(deviceGib_, 1);
    device->addWidget(deviceAuto_);
    auto* budgets = new QLabel("<b>budgets</b>", this);
    budgets->setToolTip("Memory a cell may use, per pool; auto reads this machine");
    form->addRow(budgets);
    form->addRow("host", host);
    form->addRow("device", device);
    auto* formBox = new QWidget(this);
    auto* formColumn = bareLayout<QVBoxLayout>(formBox);
    formColumn->addLayout(form);
    formColumn->addStretch(1);

    auto* left = new QWidget(this);
    auto* leftLayout = bareLayout<QVBoxLayout>(left);
    leftLayout->addWidget(editor_, 1);
    leftLayout->addWidget(error_);
    // The YAML is what people edit: it takes the width; the lists only summarise it.
    QSplitter* top = makeSplitter(Qt::Horizontal, {{left, 1}, {formBox, 0}}, this);
    formBox->setMinimumWidth(180);
    top->setSizes({600, 230});
    QSplitter* split = makeSplitter(
        Qt::Vertical, {{top, 4}, {filteredTable(filter_, table_, this), 4}, {bars_, 0}}, this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
}

void MatrixDesigner::loadFile(const QString& path) {
    // The same bounded, regular-file-only read as `commprof plan`: a FIFO or /dev/zero given as
    // a matrix is refused with its reason instead of hanging the GUI.
    setText(QString::fromUtf8(matrix::readYamlFile(path)), path);
}

void MatrixDesigner::setText(const QString& yaml, const QString& fileName) {
    fileName_ = fileName;
    sizedColumns_ = false;
    revealNextError_ = true; // an error in a file just opened is shown, wherever it is
    editor_->setPlainText(yaml);
    editor_->document()->setModified(false);
    emit fileNameChanged(fileName_);
    replanNow();
}

void MatrixDesigner::saveTo(const QString& path) {
    // Checked down to fsync, so a full disk is reported and the old file stays whole.
    if (const QString error = files::writeAtomically(path, editor_->toPlainText().toUtf8());
        !error.isEmpty()) {
        throw std::runtime_error(("cannot save " + error).toStdString());
    }
    editor_->document()->setModified(false);
    if (path != fileName_) {
        fileName_ = path;
        emit fileNameChanged(fileName_);
        replanNow(); // errors now name the new file
    }
}

bool MatrixDesigner::isModified() const {
    return editor_->document()->isModified();
}

std::shared_ptr<const feasibility::Plan> MatrixDesigner::plan() const {
    return cells_->sharedPlan();
}

void MatrixDesigner::setBudgets(std::optional<double> hostGib, std::optional<double> deviceGib,
                                std::optional<int> gpus) {
    overrides_ = {hostGib, deviceGib, gpus};
    {
        const QSignalBlocker b1(hostAuto_), b2(deviceAuto_), b3(hostGib_), b4(deviceGib_);
        hostAuto_->setChecked(!hostGib);
        deviceAuto_->setChecked(!deviceGib);
        hostGib_->setEnabled(bool(hostGib));
        deviceGib_->setEnabled(bool(deviceGib));
        hostGib_->setValue(hostGib.value_or(hostGib_->value()));
        deviceGib_->setValue(deviceGib.value_or(deviceGib_->value()));
    }
    replanNow();
}

void MatrixDesigner::budgetsEdited() {
    // Unticking "auto" starts from the figure in use (shown in the box), never from a default.
    hostGib_->setEnabled(!hostAuto_->isChecked());
    deviceGib_->setEnabled(!deviceAuto_->isChecked());
    if (writeBudgetsToText()) {
        return; // the text changed: it is planned after the pause, as any edit
    }
    // A text with an error cannot take them: they hold for the plans until it is fixed.
    overrides_.hostGib =
        hostAuto_->isChecked() ? std::nullopt : std::optional<double>(hostGib_->value());
    overrides_.deviceGib =
        deviceAuto_->isChecked() ? std::nullopt : std::optional<double>(deviceGib_->value());
    debounce_->start();
}

bool MatrixDesigner::writeBudgetsToText() {
    if (stale_ || !cells_->sharedPlan()) {
        return false;
    }
    // The boxes show what a cell may use; the matrix's figure is that plus its reserve.
    matrix::BudgetSpec budget = cells_->plan().matrix.budget;
    budget.hostGib = hostAuto_->isChecked()
                         ? std::nullopt
                         : std::optional<double>(hostGib_->value() + budget.reserveGib);
    budget.deviceGib = deviceAuto_->isChecked()
                           ? std::nullopt
                           : std::optional<double>(deviceGib_->value() + budget.reserveGib);
    const QString text = editor_->toPlainText();
    try {
        const matrix::TextEdit edit = matrix::budgetEdit(text, fileName_, budget);
        overrides_.hostGib = std::nullopt;
        overrides_.deviceGib = std::nullopt;
        applyEdit(editor_->document(), edit);
        return true;
    } catch (const matrix::MatrixError& e) {
        emit editFailed(QString("The budgets are used but not written to the matrix: %1")
                            .arg(QString::fromUtf8(e.what())));
        return false;
    }
}

void MatrixDesigner::setModelValue(const QString& model, const QString& key, const QString& value) {
    try {
        applyEdit(editor_->document(),
                  matrix::modelValueEdit(editor_->toPlainText(), fileName_, model, key, value));
    } catch (const std::exception& e) {
        emit editFailed(
            QString("Cannot set %1: %2 for the model %3: %4").arg(key, value, model, e.what()));
    }
}

void MatrixDesigner::addTorchScriptModel(const QString& ptFile) {
    const auto taken = spec::mapped<QStringList>(cells_->plan().matrix.models,
                                                 [](const auto& m) { return m.name; });
    try {
        const QString entry = matrix::matrixEntry(ptFile, fileName_, taken);
        applyEdit(editor_->document(),
                  matrix::appendModelEdit(editor_->toPlainText(), fileName_, entry));
    } catch (const std::exception& e) {
        emit editFailed(QString("Cannot add %1: %2")
                            .arg(QFileInfo(ptFile).fileName(), QString::fromUtf8(e.what())));
    }
}

void MatrixDesigner::showResolvedBudgets() {
    const feasibility::MachineBudget& b = cells_->plan().budget;
    const matrix::BudgetSpec& written = cells_->plan().matrix.budget;
    // "auto" is unticked where the matrix or setBudgets gives a figure; the box shows the
    // figure in use either way.
    for (auto [box, automatic, bytes, source, fixed] :
         {std::tuple{hostGib_, hostAuto_, b.hostBytes, b.hostSource,
                     bool(overrides_.hostGib || written.hostGib)},
          std::tuple{deviceGib_, deviceAuto_, b.deviceBytes, b.deviceSource,
                     bool(overrides_.deviceGib || written.deviceGib)}}) {
        const QSignalBlocker blockBox(box), blockAutomatic(automatic);
        automatic->setChecked(!fixed);
        box->setEnabled(fixed);
        box->setValue(bytes / spec::kGiB);
        box->setToolTip(source);
    }
}

int MatrixDesigner::errorLine() const {
    return highlighter_->errorLine();
}
int MatrixDesigner::errorColumn() const {
    return highlighter_->errorColumn();
}
QString MatrixDesigner::errorText() const {
    return error_->property("plainError").toString();
}

QString MatrixDesigner::summary() const {
    const int n = int(cells_->plan().cells.size());
    const QString counts = QString("%1 cells: %2 feasible, %3 skipped_infeasible")
                               .arg(n)
                               .arg(feasibleCount_)
                               .arg(n - feasibleCount_);
    return stale_ ? "The matrix has an error; last good plan: " + counts : counts;
}

void MatrixDesigner::setStale(bool stale) {
    // Greyed, not emptied: the last good plan stays readable while the user fixes the text.
    for (QWidget* w :
         std::initializer_list<QWidget*>{table_, models_, layers_, worldSizes_, bars_}) {
        w->setEnabled(!stale);
    }
    table_->setToolTip(stale ? "The last good plan: the matrix text has an error (F8 goes there)"
                             : QString());
    if (stale != stale_) {
        stale_ = stale;
        emit staleChanged(stale);
    }
}

void MatrixDesigner::replanNow() {
    debounce_->stop();
    const QByteArray yaml = editor_->toPlainText().toUtf8();
    const QString file = fileName_.isEmpty() ? QString("matrix.yaml") : fileName_;
    feasibility::PlanOptions options;
    options.facts = machine_;
    options.overrides = overrides_;
    const QString filter = cells_->filter();
    const int sortColumn = cells_->sortColumn();
    const Qt::SortOrder sortOrder = cells_->sortOrder();
    // Read-only on both threads; a plan the edit did not change is handed back as it is.
    std::shared_ptr<const feasibility::Plan> previous =
        cells_->plan().cells.empty() ? nullptr : cells_->sharedPlan();
    planner_->start(
        "Planning " + QFileInfo(file).fileName(),
        [yaml, file, options, filter, sortColumn, sortOrder,
         previous](const jobs::JobContext& job) {
            Planned out;
            try {
                const matrix::Matrix m = matrix::parseMatrix(yaml, file);
                job.throwIfCancelled();
                feasibility::PlanOptions o = options;
                if (!o.facts) {
                    o.facts = feasibility::currentMachine(); // runs nvidia-smi: never on the GUI
                }
                out.machine = *o.facts;
                out.plan = feasibility::replan(m, o, previous);
                if (out.plan == previous) {
                    return out; // the table, order and bars shown are this plan's already
                }
                job.throwIfCancelled();
                out.order = models::CellTableModel::order(*out.plan, filter, sortColumn, sortOrder);
                out.worst = models::CellTableModel::worstCell(*out.plan);
                out.feasible = int(std::ranges::count_if(
                    out.plan->cells, [](const auto& pc) { return pc.estimate.feasible; }));
            } catch (const matrix::MatrixError& e) {
                out.errorLine = e.line;
                out.errorColumn = e.column;
                out.error = QString::fromUtf8(e.what());
            }
            return out;
        },
        [this](const Planned& planned) { applyPlan(planned); },
        [this](const QString& message) {
            showError(0, 0, message, false);
            emit planFailed(message);
        });
}

void MatrixDesigner::applyPlan(const Planned& planned) {
    if (!planned.plan) {
        // Keep the last good plan on screen; mark where the text is wrong.
        showError(planned.errorLine, planned.errorColumn, planned.error, revealNextError_);
        if (revealNextError_) {
            emit loadedWithError(planned.error);
        }
        revealNextError_ = false;
        setStale(true);
        return;
    }
    revealNextError_ = false;
    setStale(false);
    machine_ = planned.machine;
    showError(0, 0, {}, false);
    if (planned.plan == cells_->sharedPlan()) {
        emit planChanged(planned.plan); // current again, as it was: nothing to redraw
        return;
    }
    const feasibility::Plan& plan = *planned.plan;
    models_->clear();
    for (const auto& model : plan.matrix.models) {
        addItemWithTip(*models_, model.isSweep()
                                     ? QString("%1  (collective sweep: %2, up to %3 MiB)")
                                           .arg(model.name, model.sweep.collectives.join(", "))
                                           .arg(model.sweep.maxBytes / spec::kMiB, 0, 'g', 4)
                                     : QString("%1  (%2, %3M params)")
                                           .arg(model.name, model.family)
                                           .arg(model.params / 1e6, 0, 'g', 4));
    }
    layers_->clear();
    for (const auto& layer : plan.matrix.layers) {
        addItemWithTip(*layers_,
                       QString("%1  (%2 on %3, %4)")
                           .arg(layer.name, layer.backend, layer.device, layer.interconnect));
    }
    worldSizes_->clear();
    worldSizes_->addItems(spec::mapped<QStringList>(plan.matrix.worldSizes,
                                                    [](int ws) { return QString::number(ws); }));
    worstCell_ = planned.worst;
    feasibleCount_ = planned.feasible;
    const QString keep = selectedId_;
    cells_->setPlan(planned.plan, planned.order);
    // Per-node demand only where budgets are per node (the Slurm launcher).
    using Cells = models::CellTableModel;
    table_->setColumnHidden(Cells::Nodes, !planned.plan->budget.perNode);
    table_->setColumnHidden(Cells::Varies, cells_->varying().isEmpty());
    if (!sizedColumns_) {
        table_->resizeColumnsToContents();
        sizedColumns_ = true;
    }
    // The columns whose text a new plan changes most (ids, the axes that vary, "feasible" once a
    // cell is skipped, the reasons) are fitted to it again, so none is cut in its middle. Only
    // the reason is capped: the axes that vary are what tell cells apart.
    for (const int column : {Cells::Id, Cells::Varies, Cells::Feasible, Cells::Reason}) {
        table_->resizeColumnToContents(column);
    }
    table_->setColumnWidth(Cells::Reason,
                           std::min(table_->columnWidth(Cells::Reason), kMaxReasonPx));
    showResolvedBudgets();
    selectCell(keep);
    if (selectedCell().isEmpty()) {
        showCellAt(-1);
    }
    emit planChanged(planned.plan);
}

void MatrixDesigner::showError(int line, int column, const QString& message, bool reveal) {
    highlighter_->setError(line, column);
    editor_->setMarkedLine(line);
    error_->setProperty("plainError", message);
    if (message.isEmpty()) {
        error_->clear();
        return;
    }
    error_->setText(
        message.toHtmlEscaped() +
        (line > 0 ? QString(" &nbsp;<a href=\"#error\">go to line %1</a>").arg(line) : QString()));
    if (reveal && line > 0) {
        editor_->revealLine(line);
    }
}

void MatrixDesigner::goToError() {
    if (errorLine() > 0) {
        editor_->goTo(errorLine(), errorColumn());
    }
}

QString MatrixDesigner::selectedCell() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    const int i = current.isValid() && table_->selectionModel()->isRowSelected(current.row())
                      ? cells_->planIndexAt(current.row())
                      : -1;
    return i >= 0 ? cells_->plan().cells[std::size_t(i)].cell.id : QString();
}

void MatrixDesigner::selectCell(const QString& cellId) {
    const int row = cellId.isEmpty() ? -1 : cells_->rowOfCell(cellId);
    if (row < 0) {
        table_->selectionModel()->clear();
        return;
    }
    table_->selectRow(row);
    table_->scrollTo(cells_->index(row, 0));
    showCellAt(row);
}

void MatrixDesigner::showCellAt(int row) {
    const auto& cells = cells_->plan().cells;
    int i = cells_->planIndexAt(row);
    if (i < 0) {
        i = worstCell_; // no selection: the cell closest to (or furthest past) its limit
    }
    if (i >= 0 && i < int(cells.size())) {
        bars_->setEstimate(cells[std::size_t(i)].cell.id, cells[std::size_t(i)].estimate);
    } else {
        bars_->clear();
    }
}

} // namespace commprof::widgets
