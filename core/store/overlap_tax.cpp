// SPDX-License-Identifier: GPL-3.0-or-later
#include "overlap_tax.h"

#include "results/json_kind.h"
#include "spec/comm_hooks.h"

#include <QHash>
#include <QJsonObject>

namespace commprof::store {
namespace {

constexpr const char* kHook = "hook";

// The twin that sends nothing (hook `local`) is the baseline the others' tax is measured from.
bool sendsNothing(const CellRow& c) {
    return spec::sendsNothing(c.axes.value(kHook).toString().toStdString());
}

// The cell's axes but the hook, and its run: what a twin shares.
QString twinKey(const CellRow& c) {
    QVariantMap axes = c.axes;
    axes.remove(kHook);
    axes.insert("run_dir", c.runDir);
    return results::compactJson(QJsonObject::fromVariantMap(axes));
}

bool usable(const CellRow& c) {
    return c.complete() && !c.isSweep() && c.ddpLogger.backwardComputeMs.has_value();
}

} // namespace

void fillOverlapTax(std::vector<CellRow>& cells) {
    QHash<QString, const CellRow*> locals;
    for (const CellRow& c : cells) {
        if (usable(c) && sendsNothing(c)) {
            locals.insert(twinKey(c), &c);
        }
    }
    if (locals.isEmpty()) {
        return;
    }
    for (CellRow& c : cells) {
        if (!usable(c) || sendsNothing(c)) {
            continue;
        }
        const CellRow* twin = locals.value(twinKey(c));
        if (!twin || *twin->ddpLogger.backwardComputeMs <= 0) {
            continue;
        }
        c.overlapTwin = twin->id;
        c.overlapTaxMs = *c.ddpLogger.backwardComputeMs - *twin->ddpLogger.backwardComputeMs;
        c.overlapTaxPercent = *c.overlapTaxMs / *twin->ddpLogger.backwardComputeMs * 100.0;
    }
}

} // namespace commprof::store
