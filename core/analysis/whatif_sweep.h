// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `trace whatif --sweep RUN`: the collective cost from a sweep over the same link, where the
// trace's own collectives do not pin it down (too few distinct sizes, or a line they cannot
// support). RUN is a results folder (or one cell of it) holding a `kind: sweep` cell
// (docs/formats.md); its all_reduce fit (collective_sweep.h's fitLinear) is the shape of the
// cost, a float32 all-reduce of the bytes on the wire, at the sweep's world size. Only a sweep
// of the job's own world size, backend and device (and link, where the job's cell.json names
// one) prices it: the ring's latency steps and the cores' share of a collective differ
// elsewhere, so any other is refused, naming its file and field.

#include "analysis/collective_sweep.h"

#include <QString>

#include <vector>

namespace commprof::results {
struct CellFiles;
}

namespace commprof::analysis {

// One sweep cell's all_reduce, as `trace whatif --sweep` is offered it.
struct SweepOffer {
    QString cellDir;  // the cell's folder
    QString cellJson; // its cell.json: what a refusal names
    QString cellId;
    QString layer, link; // as cell.json names them (link: loopback where none is said)
    QString backend;     // the layer's process group; empty for a layer spec/layers.h lacks
    bool onDevice = false;
    int worldSize = 0;
    // Why this cell cannot price a collective (incomplete, no all_reduce, a refused fit); empty
    // where it can.
    QString problem;
    LinearFit fit;
    // The median of |time - fit| / time over the sizes fitted: how far the line is from the
    // sweep's own points (every interval widens by it).
    double residualSpread = 0;
};

// Every kind: sweep cell of `cells` (a results folder's, or one cell's), in their order.
std::vector<SweepOffer> sweepOffers(const std::vector<results::CellFiles>& cells);

// The first offer of `offers` at the job's world size, backend and device (and `link`, where
// not empty); nullptr with *why naming every offer's file and the field that differs.
const SweepOffer* matchingSweep(const std::vector<SweepOffer>& offers, int worldSize,
                                const QString& backend, bool onDevice, const QString& link,
                                QString* why);

} // namespace commprof::analysis
