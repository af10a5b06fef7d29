// SPDX-License-Identifier: GPL-3.0-or-later
#include "bucket_schedule.h"

#include <QStringList>

#include <algorithm>

namespace commprof::analysis {

std::vector<std::vector<int>> assignBuckets(const std::vector<double>& bytesInReadyOrder,
                                            const BucketRule& rule) {
    std::vector<std::vector<int>> buckets;
    std::vector<int> open;
    double size = 0;
    for (int i = 0; i < int(bytesInReadyOrder.size()); ++i) {
        open.push_back(i);
        size += bytesInReadyOrder[std::size_t(i)];
        const double limit = buckets.empty() ? rule.firstCapBytes : rule.capBytes;
        if (size >= limit) {
            buckets.push_back(std::move(open));
            open.clear();
            size = 0;
        }
    }
    if (!open.empty()) {
        buckets.push_back(std::move(open));
    }
    return buckets;
}

BucketWire HookModel::wire(const std::vector<const ReadyParam*>& members) const {
    double all = 0;
    for (const ReadyParam* p : members) {
        all += p->bytes;
    }
    switch (sends) {
    case spec::HookWire::Nothing:
        return {};
    case spec::HookWire::Half:
        return {1, all / 2};
    case spec::HookWire::Gradient:
        return {1, all};
    case spec::HookWire::LowRank:
        break;
    }
    // A shape gives the element count, so the element size is the bytes over it; with no shape,
    // a flat float32 tensor.
    constexpr double kFloat = 4;
    double uncompressed = 0, factors = 0;
    for (const ReadyParam* p : members) {
        double numel = p->shape.empty() ? p->bytes / kFloat : 1.0;
        for (const double d : p->shape) {
            numel *= d;
        }
        const double element = numel > 0 ? p->bytes / numel : kFloat;
        const double n = p->shape.empty() ? numel : p->shape.front();
        const double m = n > 0 ? numel / n : 0;
        const double r = std::min({n, m, double(powersgdRank)});
        if ((n + m) * r * minCompressionRate < n * m) {
            factors += (n + m) * r * element;
        } else {
            uncompressed += p->bytes;
        }
    }
    // Once compressing, the hook runs its three all-reduces whatever they hold, as Python's
    // powerSGD_hook does: the uncompressed tensors (empty or not), every P, every Q.
    return {3, uncompressed + factors};
}

std::optional<HookModel> hookModel(const QString& hook, int powersgdRank, QString* why) {
    const spec::CommHook* row = spec::findCommHook(hook.toStdString());
    if (!row) {
        if (why) {
            QStringList names;
            for (const spec::CommHook& h : spec::kCommHooks) {
                names << QString::fromLatin1(h.name.data(), qsizetype(h.name.size()));
            }
            *why = QString("the %1 hook is not modelled (%2 are)").arg(hook, names.join(", "));
        }
        return std::nullopt;
    }
    HookModel m;
    m.hook = hook;
    m.sends = row->wire;
    m.powersgdRank = std::max(1, powersgdRank);
    return m;
}

Schedule simulateSchedule(const std::vector<ReadyParam>& readyOrder, const BucketRule& rule,
                          const HookModel& hook, const CollectiveCost& cost, double computeEndUs) {
    std::vector<double> bytes;
    bytes.reserve(readyOrder.size());
    for (const ReadyParam& p : readyOrder) {
        bytes.push_back(p.bytes);
    }
    return simulateLayout(readyOrder, assignBuckets(bytes, rule), hook, cost, computeEndUs);
}

Schedule simulateLayout(const std::vector<ReadyParam>& readyOrder,
                        const std::vector<std::vector<int>>& layout, const HookModel& hook,
                        const CollectiveCost& cost, double computeEndUs) {
    Schedule s;
    s.computeEndUs = computeEndUs;
    double previousReady = 0, previousEnd = 0;
    for (const std::vector<int>& members : layout) {
        ScheduledBucket b;
        b.nparams = int(members.size());
        std::vector<const ReadyParam*> params;
        params.reserve(members.size());
        for (const int i : members) {
            const ReadyParam& p = readyOrder[std::size_t(i)];
            params.push_back(&p);
            b.bytes += p.bytes;
            b.readyUs = std::max(b.readyUs, p.readyUs);
        }
        const BucketWire wire = hook.wire(params);
        b.wireBytes = wire.bytes;
        // The reducer launches buckets in order: a bucket ready early waits for the one before.
        b.readyUs = std::max(b.readyUs, previousReady);
        b.startUs = std::max(b.readyUs, previousEnd);
        b.endUs = b.startUs + cost.us(wire.collectives, wire.bytes);
        previousReady = b.readyUs;
        previousEnd = b.endUs;
        s.computeEndUs = std::max(s.computeEndUs, b.readyUs);
        s.buckets.push_back(b);
    }
    s.commEndUs = previousEnd;
    return s;
}

} // namespace commprof::analysis
