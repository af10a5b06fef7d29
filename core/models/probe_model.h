// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The probe's findings as a table: issues first, then warnings, then what was found fine.

#include "probe/probe.h"

#include "models/table_model.h"

namespace commprof::models {

class ProbeModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Severity, Check, Finding, ColumnCount };
    enum Role { SeverityRole = Qt::UserRole + 1 };

    explicit ProbeModel(QObject* parent = nullptr);
    void setReport(const probe::ProbeReport& report);
    const probe::ProbeReport& report() const { return report_; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

private:
    struct Row {
        QString severity; // issue | warning | ok
        QString check;
        QString finding;
    };
    probe::ProbeReport report_;
    QList<Row> rows_;
};

} // namespace commprof::models
