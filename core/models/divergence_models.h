// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Item models for the determinism view: the per-rank verdicts, the two streams side by side
// around a rank's first divergence, and the discriminator table.

#include "determinism/divergence.h"

#include "models/table_model.h"

namespace commprof::models {

class RankVerdictModel : public TableModel {
    Q_OBJECT
public:
    explicit RankVerdictModel(QObject* parent = nullptr);
    void setReport(const determinism::DiffReport& report);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

private:
    determinism::DiffReport report_;
};

// Records of run A (and B's counterparts) within `radius` records of a rank's first divergence.
class SideBySideModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Seq, Identity, Iteration, DigestA, DigestB, Status, ColumnCount };
    explicit SideBySideModel(QObject* parent = nullptr);
    void setStreams(const determinism::FpStream& a, const determinism::FpStream& b,
                    const QString& focusKey, int radius = 8);
    int focusRow() const { return focusRow_; }
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

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

class DiscriminatorModel : public TableModel {
    Q_OBJECT
public:
    explicit DiscriminatorModel(QObject* parent = nullptr);
    void setReport(const determinism::DiffReport& report);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

private:
    std::vector<determinism::Discriminator> rows_;
};

} // namespace commprof::models
