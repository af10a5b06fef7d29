// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Export: where to, which formats (PDF / SVG / PNG), a paper's single (3.3 in) or double
// (7 in) column width, the text size (8-9 pt), the PNG resolution, and whether to write the
// tables (cells.csv, buckets.csv, fit.json, macros.tex) as well. Remembers the last choice.

#include "report_writer.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace commprof::widgets {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportDialog(const QString& defaultDir, QWidget* parent = nullptr);
    QString outDir() const;
    ExportOptions options() const;
    void setOptions(const ExportOptions& options);
    QDialogButtonBox* buttons() const { return buttons_; }

private:
    void validate();
    QLineEdit* dir_;
    QCheckBox* pdf_;
    QCheckBox* svg_;
    QCheckBox* png_;
    QComboBox* width_;
    QDoubleSpinBox* font_;
    QSpinBox* dpi_;
    QCheckBox* tables_;
    QDialogButtonBox* buttons_;
};

} // namespace commprof::widgets
