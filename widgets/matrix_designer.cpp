#include "matrix_designer.h"

#include "feasibility_bars.h"
#include "models/cell_table_model.h"
#include "yaml_highlighter.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace commprof::widgets {
namespace {

QDoubleSpinBox* gibBox(QWidget* parent) {
    auto* b = new QDoubleSpinBox(parent);
    b->setRange(0.1, 4096);
    b->setDecimals(2);
    b->setSuffix(" GiB");
    b->setValue(16);
    b->setEnabled(false);
    return b;
}

} // namespace

MatrixDesigner::MatrixDesigner(QWidget* parent) : QWidget(parent) {
    editor_ = new QPlainTextEdit(this);
    editor_->setFont(QFont("monospace"));
    editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
    highlighter_ = new YamlHighlighter(editor_->document());
    error_ = new QLabel(this);
    error_->setStyleSheet("color: #be1e1e");
    error_->setWordWrap(true);
    models_ = new QListWidget(this);
    layers_ = new QListWidget(this);
    worldSizes_ = new QListWidget(this);
    cells_ = new models::CellTableModel(this);
    table_ = new QTableView(this);
    table_->setModel(cells_);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->horizontalHeader()->setStretchLastSection(true);
    bars_ = new FeasibilityBars(this);
    hostAuto_ = new QCheckBox("auto", this);
    hostAuto_->setChecked(true);
    deviceAuto_ = new QCheckBox("auto", this);
    deviceAuto_->setChecked(true);
    hostGib_ = gibBox(this);
    deviceGib_ = gibBox(this);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(editor_, &QPlainTextEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
    connect(debounce_, &QTimer::timeout, this, &MatrixDesigner::replanNow);
    auto budgetsChanged = [this] {
        hostGib_->setEnabled(!hostAuto_->isChecked());
        deviceGib_->setEnabled(!deviceAuto_->isChecked());
        overrides_.hostGib =
            hostAuto_->isChecked() ? std::nullopt : std::optional<double>(hostGib_->value());
        overrides_.deviceGib =
            deviceAuto_->isChecked() ? std::nullopt : std::optional<double>(deviceGib_->value());
        debounce_->start();
    };
    for (QCheckBox* c : {hostAuto_, deviceAuto_}) {
        connect(c, &QCheckBox::toggled, this, budgetsChanged);
    }
    for (QDoubleSpinBox* b : {hostGib_, deviceGib_}) {
        connect(b, &QDoubleSpinBox::valueChanged, this, budgetsChanged);
    }
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showCell(current.row()); });

    auto* form = new QFormLayout;
    form->addRow("models", models_);
    form->addRow("layers", layers_);
    form->addRow("world sizes", worldSizes_);
    auto* host = new QHBoxLayout;
    host->addWidget(hostGib_);
    host->addWidget(hostAuto_);
    auto* device = new QHBoxLayout;
    device->addWidget(deviceGib_);
    device->addWidget(deviceAuto_);
    form->addRow("host budget", host);
    form->addRow("device budget", device);
    auto* formBox = new QWidget(this);
    formBox->setLayout(form);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(editor_, 1);
    leftLayout->addWidget(error_);
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(left);
    top->addWidget(formBox);
    top->setStretchFactor(0, 3);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(table_);
    split->addWidget(bars_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);
}

void MatrixDesigner::loadFile(const QString& path) {
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) {
        setText(QString::fromUtf8(f.readAll()), path);
    }
}

void MatrixDesigner::setText(const QString& yaml, const QString& fileName) {
    fileName_ = fileName;
    editor_->setPlainText(yaml);
    replanNow();
}

void MatrixDesigner::setBudgets(std::optional<double> hostGib, std::optional<double> deviceGib,
                                std::optional<int> gpus) {
    overrides_ = {hostGib, deviceGib, gpus};
    hostAuto_->blockSignals(true);
    deviceAuto_->blockSignals(true);
    hostAuto_->setChecked(!hostGib);
    deviceAuto_->setChecked(!deviceGib);
    hostGib_->setValue(hostGib.value_or(hostGib_->value()));
    deviceGib_->setValue(deviceGib.value_or(deviceGib_->value()));
    hostAuto_->blockSignals(false);
    deviceAuto_->blockSignals(false);
    replanNow();
}

int MatrixDesigner::errorLine() const {
    return highlighter_->errorLine();
}
int MatrixDesigner::errorColumn() const {
    return highlighter_->errorColumn();
}
QString MatrixDesigner::errorText() const {
    return error_->text();
}

void MatrixDesigner::replanNow() {
    debounce_->stop();
    try {
        const matrix::Matrix m = matrix::parseMatrix(
            editor_->toPlainText().toUtf8(), fileName_.isEmpty() ? "matrix.yaml" : fileName_);
        if (!machine_) {
            machine_ = feasibility::currentMachine();
        }
        feasibility::PlanOptions options;
        options.facts = machine_;
        options.overrides = overrides_;
        const feasibility::Plan plan = feasibility::makePlan(m, options);
        highlighter_->setError(0, 0);
        error_->clear();
        models_->clear();
        for (const auto& model : m.models) {
            models_->addItem(QString("%1  (%2, %3M params)")
                                 .arg(model.name, model.family)
                                 .arg(model.params / 1e6, 0, 'g', 4));
        }
        layers_->clear();
        for (const auto& layer : m.layers) {
            layers_->addItem(QString("%1  (%2 on %3, %4)")
                                 .arg(layer.name, layer.backend, layer.device, layer.interconnect));
        }
        worldSizes_->clear();
        for (int ws : m.worldSizes) {
            worldSizes_->addItem(QString::number(ws));
        }
        cells_->setPlan(plan);
        table_->resizeColumnsToContents();
        showCell(cells_->worstRow());
        emit planChanged(plan);
    } catch (const matrix::MatrixError& e) {
        // Keep the last good plan on screen; mark where the text is wrong.
        highlighter_->setError(e.line, e.column);
        error_->setText(QString::fromStdString(e.what()));
    }
}

void MatrixDesigner::showCell(int row) {
    const auto& cells = cells_->plan().cells;
    if (row >= 0 && row < int(cells.size())) {
        bars_->setEstimate(cells[std::size_t(row)].cell.id, cells[std::size_t(row)].estimate);
    }
}

} // namespace commprof::widgets
