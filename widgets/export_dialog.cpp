// SPDX-License-Identifier: GPL-3.0-or-later
#include "export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace commprof::widgets {

ExportDialog::ExportDialog(const QString& defaultDir, QWidget* parent) : QDialog(parent) {
    setWindowTitle("Export figures and tables");
    dir_ = new QLineEdit(defaultDir, this);
    auto* browse = new QPushButton("Browse...", this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, "Export into", dir_->text());
        if (!d.isEmpty()) {
            dir_->setText(d);
        }
    });
    pdf_ = new QCheckBox("PDF", this);
    svg_ = new QCheckBox("SVG", this);
    png_ = new QCheckBox("PNG", this);
    width_ = new QComboBox(this);
    width_->addItem(QString("single column (%1 in)").arg(ExportOptions::kSingleColumnIn),
                    ExportOptions::kSingleColumnIn);
    width_->addItem(QString("double column (%1 in)").arg(ExportOptions::kDoubleColumnIn),
                    ExportOptions::kDoubleColumnIn);
    font_ = new QDoubleSpinBox(this);
    font_->setRange(8.0, 9.0);
    font_->setSingleStep(0.5);
    font_->setDecimals(1);
    font_->setSuffix(" pt");
    dpi_ = new QSpinBox(this);
    dpi_->setRange(72, 1200);
    dpi_->setSingleStep(50);
    dpi_->setSuffix(" dpi");
    tables_ = new QCheckBox("cells.csv, buckets.csv, fit.json, macros.tex", this);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText("Export");
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QCheckBox* c : {pdf_, svg_, png_, tables_}) {
        connect(c, &QCheckBox::toggled, this, &ExportDialog::validate);
    }
    connect(png_, &QCheckBox::toggled, dpi_, &QWidget::setEnabled);
    connect(dir_, &QLineEdit::textChanged, this, &ExportDialog::validate);

    auto* where = new QHBoxLayout;
    where->addWidget(dir_, 1);
    where->addWidget(browse);
    auto* formats = new QHBoxLayout;
    formats->addWidget(pdf_);
    formats->addWidget(svg_);
    formats->addWidget(png_);
    formats->addStretch(1);
    auto* form = new QFormLayout(this);
    form->addRow("folder", where);
    form->addRow("figures as", formats);
    form->addRow("width", width_);
    form->addRow("text size", font_);
    form->addRow("PNG resolution", dpi_);
    form->addRow("tables", tables_);
    form->addRow(buttons_);
    setOptions({});
}

void ExportDialog::setOptions(const ExportOptions& o) {
    pdf_->setChecked(o.pdf);
    svg_->setChecked(o.svg);
    png_->setChecked(o.png);
    width_->setCurrentIndex(o.widthIn < ExportOptions::kDoubleColumnIn ? 0 : 1);
    font_->setValue(o.fontPt);
    dpi_->setValue(o.dpi);
    dpi_->setEnabled(o.png);
    tables_->setChecked(o.tables);
    validate();
}

QString ExportDialog::outDir() const {
    return dir_->text().trimmed();
}

ExportOptions ExportDialog::options() const {
    return {.pdf = pdf_->isChecked(),
            .svg = svg_->isChecked(),
            .png = png_->isChecked(),
            .widthIn = width_->currentData().toDouble(),
            .fontPt = font_->value(),
            .dpi = dpi_->value(),
            .tables = tables_->isChecked()};
}

void ExportDialog::validate() {
    const bool anything =
        pdf_->isChecked() || svg_->isChecked() || png_->isChecked() || tables_->isChecked();
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(anything && !outDir().isEmpty());
}

} // namespace commprof::widgets
