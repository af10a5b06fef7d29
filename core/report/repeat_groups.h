// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A study's repeats, aggregated before they are drawn: the cells that differ in nothing but the
// repeat form a group, and a figure shows the group's median with its spread (min to max) as
// hotspot aggregates before it lists, instead of one mark per repeat. Only complete repeats are
// in a group's figures; an incomplete or failed repeat stays flagged on its own.

#include "store/cell_row.h"

#include <functional>
#include <optional>
#include <vector>

namespace commprof::report {

// What a group shares: the cell's kind, layer, model, world size and every axis but the repeat.
QString repeatGroupKey(const store::CellRow& c);

struct RepeatGroup {
    QString key;
    std::vector<const store::CellRow*> cells; // every repeat, in the order given
    const store::CellRow& first() const { return *cells.front(); }
    bool contains(const QString& cellId) const;
};

// The groups of `cells`, in the order their first repeat comes.
std::vector<RepeatGroup> repeatGroups(const std::vector<const store::CellRow*>& cells);
// One group per cell (the figures' "each repeat" mode).
std::vector<RepeatGroup> singleCellGroups(const std::vector<const store::CellRow*>& cells);

struct Spread {
    double median = 0, low = 0, high = 0; // of the complete repeats' values
    int repeats = 0;                      // that have the value
    // The repeat whose value is nearest the median (the lower one of two): the cell a click on
    // the group's mark picks.
    const store::CellRow* representative = nullptr;
};
using CellValue = std::function<std::optional<double>(const store::CellRow&)>;
// Over the group's complete cells that have the value; nullopt when none has.
std::optional<Spread> spreadOf(const RepeatGroup& g, const CellValue& value);

} // namespace commprof::report
