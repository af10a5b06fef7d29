// SPDX-License-Identifier: GPL-3.0-or-later
#include "bucket_schedule.h"

#include "spec/mapped.h"
#include "spec/names.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace commprof::analysis {
namespace {

// The backward's compute against the wall clock: it advances at 1 outside the collectives and
// at 1 - contention while one runs beside it (each collective its own: CollectiveCost's
// computeContention). Collectives are added in launch order.
class ComputeClock {
public:
    void busy(double startUs, double endUs, double contention) {
        const double rate = 1.0 - std::clamp(contention, 0.0, 1.0);
        busy_.push_back({startUs, endUs, rate});
        exact_ = exact_ && rate == 1;
    }
    // The wall time at which compute has done `progressUs`.
    double wallAt(double progressUs) const {
        if (exact_) {
            return progressUs; // exactly: no contention, no rounding
        }
        double done = 0, wall = 0;
        for (const Interval& i : busy_) {
            if (progressUs - done <= i.start - wall) {
                break;
            }
            done += i.start - wall;
            const double inside = (i.end - i.start) * i.rate;
            if (i.rate > 0 && progressUs - done <= inside) {
                return i.start + (progressUs - done) / i.rate;
            }
            done += inside;
            wall = i.end;
        }
        return wall + (progressUs - done);
    }
    // The compute done by `wallUs`.
    double progressAt(double wallUs) const {
        if (exact_) {
            return wallUs;
        }
        double done = 0, wall = 0;
        for (const Interval& i : busy_) {
            if (wallUs <= i.start) {
                break;
            }
            done += i.start - wall;
            if (wallUs <= i.end) {
                return done + (wallUs - i.start) * i.rate;
            }
            done += (i.end - i.start) * i.rate;
            wall = i.end;
        }
        return done + (wallUs - wall);
    }

private:
    struct Interval {
        double start, end, rate;
    };
    std::vector<Interval> busy_;
    bool exact_ = true;
};

// The hook's collectives: a float32 all-reduce of its wire bytes over the scenario's link, or
// the cores' work on them (its dtype's sums dearer by the hook's factor), whichever is longer:
// gloo sums one chunk while the next is on the wire.
double collectiveUs(const HookModel& hook, const CollectiveCost& cost, const BucketWire& wire) {
    return std::max(cost.us(wire.collectives, wire.bytes),
                    hook.work.collectiveFactor * cost.coresShare *
                        cost.usOnMeasuredLink(wire.collectives, wire.bytes));
}

// Buckets launched in order: each ready once its last gradient is and the bucket before was, its
// collective started once the hook's casts are done and the collective before has ended. The
// backward's compute runs slower beside each collective (clock), and the hook's casts so far ran
// on the backward's thread, so every later gradient is ready that much later (hookShift).
struct Launcher {
    const HookModel& hook;
    const CollectiveCost& cost;
    ComputeClock clock{};
    ScheduledBucket last{}; // the bucket launched last
    double hookShift = 0;

    // `b` (its gradient bytes given) launched once its last gradient is ready at `lastReadyUs`.
    void launch(ScheduledBucket& b, double lastReadyUs, const BucketWire& wire) {
        b.readyUs = std::max(lastReadyUs, last.readyUs);
        b.preUs = hook.work.preUsPerByte * b.bytes;
        b.startUs = std::max(b.readyUs + b.preUs, last.endUs);
        b.endUs = b.startUs + collectiveUs(hook, cost, wire) + hook.work.postUsPerByte * b.bytes;
        hookShift += b.preUs;
        clock.busy(b.startUs, b.endUs, cost.computeContention(wire.collectives, wire.bytes));
        last = b;
    }
};

} // namespace

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
    const double all =
        std::accumulate(members.begin(), members.end(), 0.0,
                        [](double sum, const ReadyParam* p) { return sum + p->bytes; });
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
        const double numel = p->shape.empty() ? p->bytes / kFloat
                                              : std::accumulate(p->shape.begin(), p->shape.end(),
                                                                1.0, std::multiplies<>());
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
            *why = QString("the %1 hook is not modelled (%2 are)")
                       .arg(hook, QString::fromStdString(spec::namesOf(spec::kCommHooks)));
        }
        return std::nullopt;
    }
    HookModel m;
    m.hook = hook;
    m.sends = row->wire;
    m.powersgdRank = std::max(1, powersgdRank);
    return m;
}

std::vector<double> bytesOf(const std::vector<ReadyParam>& params) {
    return spec::mapped<std::vector<double>>(params, [](const ReadyParam& p) { return p.bytes; });
}

Schedule simulateSchedule(const std::vector<ReadyParam>& readyOrder, const BucketRule& rule,
                          const HookModel& hook, const CollectiveCost& cost, double computeEndUs) {
    return simulateLayout(readyOrder, assignBuckets(bytesOf(readyOrder), rule), hook, cost,
                          computeEndUs);
}

Schedule simulateLayout(const std::vector<ReadyParam>& readyOrder,
                        const std::vector<std::vector<int>>& layout, const HookModel& hook,
                        const CollectiveCost& cost, double computeEndUs) {
    Schedule s;
    Launcher launcher{hook, cost};
    double lastLaunch = 0;
    for (const std::vector<int>& members : layout) {
        ScheduledBucket b;
        b.nparams = int(members.size());
        std::vector<const ReadyParam*> params;
        params.reserve(members.size());
        double progress = 0;
        for (const int i : members) {
            const ReadyParam& p = readyOrder[std::size_t(i)];
            params.push_back(&p);
            b.bytes += p.bytes;
            progress = std::max(progress, p.readyUs + launcher.hookShift);
        }
        const BucketWire wire = hook.wire(params);
        b.wireBytes = wire.bytes;
        launcher.launch(b, launcher.clock.wallAt(progress), wire);
        lastLaunch = std::max(lastLaunch, b.readyUs + b.preUs);
        s.buckets.push_back(b);
    }
    s.computeEndUs = std::max(launcher.clock.wallAt(computeEndUs + launcher.hookShift), lastLaunch);
    s.commEndUs = launcher.last.endUs;
    return s;
}

void removeScheduleEffects(std::vector<ReadyParam>* readyOrder, double* computeEndUs,
                           const std::vector<std::vector<int>>& layout, const HookModel& hook,
                           const CollectiveCost& cost) {
    Launcher launcher{hook, cost};
    double lastShift = 0;
    std::vector<ReadyParam>& order = *readyOrder;
    for (const std::vector<int>& members : layout) {
        std::vector<const ReadyParam*> params;
        ScheduledBucket b;
        double ready = 0;
        for (const int i : members) {
            ReadyParam& p = order[std::size_t(i)];
            ready = std::max(ready, p.readyUs);
            p.readyUs = std::max(0.0, launcher.clock.progressAt(p.readyUs) - launcher.hookShift);
            params.push_back(&p);
            b.bytes += p.bytes;
        }
        lastShift = launcher.hookShift;
        launcher.launch(b, ready, hook.wire(params));
    }
    *computeEndUs = std::max(0.0, launcher.clock.progressAt(*computeEndUs) - lastShift);
}

} // namespace commprof::analysis
