// SPDX-License-Identifier: GPL-3.0-or-later
#include "divergence_models.h"

#include <QJsonObject>
#include <QStringList>

namespace commprof::models {
namespace {

QString digests(const QJsonArray& tensors) {
    QStringList out;
    for (const QJsonValue t : tensors) {
        out << t.toObject()["digest"].toString().left(12);
    }
    return out.join(" ");
}

} // namespace

void RankVerdictModel::setReport(const determinism::DiffReport& report) {
    beginResetModel();
    report_ = report;
    endResetModel();
}

RankVerdictModel::RankVerdictModel(QObject* parent)
    : TableModel({"rank", "verdict", "first differing record", "iteration", "why"}, parent) {}

int RankVerdictModel::rows() const {
    return int(report_.ranks.size());
}

QVariant RankVerdictModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
        return {};
    }
    const auto& d = report_.ranks[std::size_t(index.row())];
    switch (index.column()) {
    case 0:
        return d.rank;
    case 1:
        return determinism::toString(d.verdict);
    case 2:
        return d.first ? d.first->id : QString();
    case 3:
        return d.first ? QVariant(d.first->iteration) : QVariant();
    case 4:
        return d.first ? (d.inputsMatched ? "inputs matched" : "inputs differed") +
                             (d.note.isEmpty() ? QString() : "; " + d.note)
                       : d.note;
    default:
        return {};
    }
}

void SideBySideModel::setStreams(const determinism::FpStream& a, const determinism::FpStream& b,
                                 const QString& focusKey, int radius) {
    beginResetModel();
    rows_.clear();
    focusRow_ = -1;
    const int focus = a.byKey.value(focusKey, b.byKey.value(focusKey, -1));
    const determinism::FpStream& main = a.byKey.contains(focusKey) ? a : b;
    const determinism::FpStream& other = a.byKey.contains(focusKey) ? b : a;
    if (focus >= 0) {
        const int lo = std::max(0, focus - radius);
        const int hi = std::min(int(main.records.size()) - 1, focus + radius);
        for (int i = lo; i <= hi; ++i) {
            const auto& r = main.records[std::size_t(i)];
            const auto it = other.byKey.find(r.key());
            Row row{r.seq, r.id, r.iteration, digests(r.outputs), QString(), QString()};
            if (it == other.byKey.end()) {
                row.status = "no counterpart";
            } else {
                const auto& o = other.records[std::size_t(*it)];
                row.digestB = digests(o.outputs);
                row.status = !r.artifact.isEmpty()    ? "artifact: " + r.artifact
                             : r.outputs == o.outputs ? "same"
                                                      : "differs";
            }
            if (i == focus) {
                focusRow_ = int(rows_.size());
                row.status = "FIRST DIVERGENCE: " + row.status;
            }
            rows_.push_back(row);
        }
    }
    endResetModel();
}

SideBySideModel::SideBySideModel(QObject* parent)
    : TableModel({"seq", "record", "iteration", "run A outputs", "run B outputs", "A against B"},
                 parent) {}

int SideBySideModel::rows() const {
    return int(rows_.size());
}

QVariant SideBySideModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
        return {};
    }
    const Row& r = rows_[index.row()];
    switch (index.column()) {
    case Seq:
        return r.seq;
    case Identity:
        return r.id;
    case Iteration:
        return r.iteration;
    case DigestA:
        return r.digestA;
    case DigestB:
        return r.digestB;
    case Status:
        return r.status;
    default:
        return {};
    }
}

void DiscriminatorModel::setReport(const determinism::DiffReport& report) {
    beginResetModel();
    rows_ = report.discriminators;
    endResetModel();
}

DiscriminatorModel::DiscriminatorModel(QObject* parent)
    : TableModel({"same op, inputs -> outputs (shapes, dtypes)", "clean", "divergent"}, parent) {}

int DiscriminatorModel::rows() const {
    return int(rows_.size());
}

QVariant DiscriminatorModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
        return {};
    }
    const auto& d = rows_[std::size_t(index.row())];
    switch (index.column()) {
    case 0:
        return d.signature;
    case 1:
        return d.clean;
    case 2:
        return d.divergent;
    default:
        return {};
    }
}

} // namespace commprof::models
