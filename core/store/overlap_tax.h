// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The overlap tax: how much slower the backward's compute is when communication overlaps it.
// A complete DDP cell's `hook: local` twin has every axis the same but the hook, so the same
// model, batches and threads, and no communication: the cell's backward compute (the DDP
// logger's) minus the twin's is what sharing the cores with the all-reduces cost it. Derived
// when the cells are read, so a re-ingested twin never leaves a stale figure behind.

#include "store/cell_row.h"

#include <vector>

namespace commprof::store {

// Fills overlapTaxMs, overlapTaxPercent and overlapTwin of every cell that has a complete
// `hook: local` twin with a DDP logger figure.
void fillOverlapTax(std::vector<CellRow>& cells);

} // namespace commprof::store
