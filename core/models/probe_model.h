// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The probe's findings as a table: issues first, then warnings, then what was found fine.

#include "probe/probe.h"

#include "models/table_model.h"

namespace commprof::models {

struct ProbeFinding {
    QString severity; // issue | warning | ok
    QString check;
    QString finding;
};

class ProbeModel : public RowTableModel<ProbeFinding> {
    Q_OBJECT
public:
    enum Role { SeverityRole = Qt::UserRole + 1 };

    explicit ProbeModel(QObject* parent = nullptr);
    void setReport(const probe::ProbeReport& report);
    const probe::ProbeReport& report() const { return report_; }

protected:
    QVariant rowData(const ProbeFinding& row, int column, int role) const override;

private:
    probe::ProbeReport report_;
};

} // namespace commprof::models
