// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Item models for the determinism view: the per-rank verdicts, the two streams side by side
// around a rank's first divergence, and the discriminator table.

#include "determinism/divergence.h"

#include "models/table_model.h"

namespace commprof::models {

class RankVerdictModel : public RowTableModel<determinism::RankDivergence> {
    Q_OBJECT
public:
    explicit RankVerdictModel(QObject* parent = nullptr);
    void setReport(const determinism::DiffReport& report) { setRows(report.ranks); }
};

// One record of run A (or B where A lacks it) beside its counterpart.
struct SideBySideRow {
    qint64 seq;
    QString id;
    int iteration;
    QString digestA, digestB, status;
};

// Records of run A (and B's counterparts) within `radius` records of a rank's first divergence.
class SideBySideModel : public RowTableModel<SideBySideRow> {
    Q_OBJECT
public:
    enum Column { Seq, Identity, Iteration, DigestA, DigestB, Status, ColumnCount };
    explicit SideBySideModel(QObject* parent = nullptr);
    void setStreams(const determinism::FpStream& a, const determinism::FpStream& b,
                    const QString& focusKey, int radius = 8);
    int focusRow() const { return focusRow_; }

private:
    int focusRow_ = -1;
};

class DiscriminatorModel : public RowTableModel<determinism::Discriminator> {
    Q_OBJECT
public:
    explicit DiscriminatorModel(QObject* parent = nullptr);
    void setReport(const determinism::DiffReport& report) { setRows(report.discriminators); }
};

} // namespace commprof::models
