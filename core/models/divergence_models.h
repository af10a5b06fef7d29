#pragma once
// Item models for the determinism view: the per-rank verdicts, the two streams side by side
// around a rank's first divergence, and the discriminator table.

#include "determinism/divergence.h"

#include <QAbstractTableModel>

namespace commprof::models {

class RankVerdictModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setReport(const determinism::DiffReport& report);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    determinism::DiffReport report_;
};

// Records of run A (and B's counterparts) within `radius` records of a rank's first divergence.
class SideBySideModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Seq, Identity, Iteration, DigestA, DigestB, Status, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;
    void setStreams(const determinism::FpStream& a, const determinism::FpStream& b,
                    const QString& focusKey, int radius = 8);
    int focusRow() const { return focusRow_; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row {
        qint64 seq;
        QString id;
        int iteration;
        QString digestA, digestB, status;
    };
    QList<Row> rows_;
    int focusRow_ = -1;
};

class DiscriminatorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setReport(const determinism::DiffReport& report);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<determinism::Discriminator> rows_;
};

} // namespace commprof::models
