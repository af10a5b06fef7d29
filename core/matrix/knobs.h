// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The DDP settings a matrix may vary: each is a key of `defaults` and of a model entry, a value
// or a list of values, and every list is an axis of the matrix (matrix/axes.h). One row here is
// all a new setting needs in core: how YAML spells it, its cell-id fragment and its
// commprof-rank flag.

#include "matrix/matrix.h"
#include "matrix/yaml_fields.h"

#include <QJsonObject>
#include <QStringList>

#include <functional>
#include <vector>

namespace commprof::matrix {

struct Knob {
    QString key;      // YAML key and cell.json "axes" key: "bucket_cap_mb"
    QString plural;   // for the cell-count message: "bucket caps"
    QString rankFlag; // "--bucket-cap-mb"; a switch when `isSwitch`; empty: the runner's alone
    bool isSwitch = false;
    // Checks one YAML value and spells it canonically ("0.25", "true", "fp16_compress").
    std::function<QString(const Ctx&, const YAML::Node&)> read;
    std::function<void(RunConfig&, const QString&)> apply;
    std::function<QString(const RunConfig&)> valueOf;
    std::function<QString(const QString&)> idPart; // "cap0p25"
    bool sweepToo = false; // an axis of sweep cells too (where the ranks run, not DDP's buckets)
};

const std::vector<Knob>& knobs();
const Knob* findKnob(const QString& key);
QStringList knobKeys();

// The rank flags that carry a cell's settings, in the table's order.
QStringList knobArguments(const RunConfig& config);

// The settings of a cell.json's "config" (DDP's defaults where absent): the inverse of what
// feasibility/cell_json writes.
RunConfig knobsFromJson(const QJsonObject& config);

// Reads `n` (a value or a non-empty list) for `knob`; a list only where `listAllowed`.
KnobList readKnob(const Ctx& c, const Knob& knob, const YAML::Node& n, bool listAllowed,
                  const QString& where);

const KnobList* findList(const std::vector<KnobList>& lists, const QString& key);

} // namespace commprof::matrix
