#pragma once
// The probe's findings as a table: issues first, then warnings, then what was found fine.

#include "probe/probe.h"

#include <QAbstractTableModel>

namespace commprof::models {

class ProbeModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Severity, Check, Finding, ColumnCount };
    enum Role { SeverityRole = Qt::UserRole + 1 };

    using QAbstractTableModel::QAbstractTableModel;
    void setReport(const probe::ProbeReport& report);
    const probe::ProbeReport& report() const { return report_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

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
