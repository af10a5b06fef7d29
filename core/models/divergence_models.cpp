// SPDX-License-Identifier: GPL-3.0-or-later
#include "divergence_models.h"

#include "spec/mapped.h"

#include <QStringList>

namespace commprof::models {
namespace {

QString digests(const QJsonArray& tensors) {
    const auto digest = [](const QJsonValue& t) {
        return t.toObject()["digest"].toString().left(12);
    };
    return spec::mapped<QStringList>(tensors, digest).join(" ");
}

} // namespace

RankVerdictModel::RankVerdictModel(QObject* parent)
    : RowTableModel(
          {memberColumn("rank", &determinism::RankDivergence::rank),
           {"verdict", [](const auto& d) { return QVariant(determinism::toString(d.verdict)); }},
           {"first differing record",
            [](const auto& d) { return QVariant(d.first ? d.first->id : QString()); }},
           {"iteration",
            [](const auto& d) { return d.first ? QVariant(d.first->iteration) : QVariant(); }},
           {"why",
            [](const auto& d) {
                return QVariant(d.first ? (d.inputsMatched ? "inputs matched" : "inputs differed") +
                                              (d.note.isEmpty() ? QString() : "; " + d.note)
                                        : d.note);
            }}},
          parent) {}

void SideBySideModel::setStreams(const determinism::FpStream& a, const determinism::FpStream& b,
                                 const QString& focusKey, int radius) {
    std::vector<SideBySideRow> rows;
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
            SideBySideRow row{r.seq, r.id, r.iteration, digests(r.outputs), QString(), QString()};
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
                focusRow_ = int(rows.size());
                row.status = "FIRST DIVERGENCE: " + row.status;
            }
            rows.push_back(row);
        }
    }
    setRows(std::move(rows));
}

SideBySideModel::SideBySideModel(QObject* parent)
    : RowTableModel({memberColumn("seq", &SideBySideRow::seq),
                     memberColumn("record", &SideBySideRow::id),
                     memberColumn("iteration", &SideBySideRow::iteration),
                     memberColumn("run A outputs", &SideBySideRow::digestA),
                     memberColumn("run B outputs", &SideBySideRow::digestB),
                     memberColumn("A against B", &SideBySideRow::status)},
                    parent) {}

DiscriminatorModel::DiscriminatorModel(QObject* parent)
    : RowTableModel({memberColumn("same op, inputs -> outputs (shapes, dtypes)",
                                  &determinism::Discriminator::signature),
                     memberColumn("clean", &determinism::Discriminator::clean),
                     memberColumn("divergent", &determinism::Discriminator::divergent)},
                    parent) {}

} // namespace commprof::models
