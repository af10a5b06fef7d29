// SPDX-License-Identifier: GPL-3.0-or-later
#include "bucket_schedule.h"

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

std::optional<double> wireFactor(const QString& hook, QString* why) {
    if (hook == "allreduce") {
        return 1.0;
    }
    if (hook == "fp16_compress" || hook == "bf16_compress") {
        return 0.5;
    }
    if (why) {
        // PowerSGD's wire bytes ((n + m) x rank x 4 per matrix) depend on each gradient's shape
        // and on its warm-up of plain all-reduces, and its compression is compute this cost
        // leaves out; local reduces nothing between ranks.
        *why = QString("the %1 hook is not modelled (only allreduce, fp16_compress and "
                       "bf16_compress are)")
                   .arg(hook);
    }
    return std::nullopt;
}

Schedule simulateSchedule(const std::vector<ReadyParam>& readyOrder, const BucketRule& rule,
                          const WireCost& cost, double computeEndUs) {
    std::vector<double> bytes;
    for (const ReadyParam& p : readyOrder) {
        bytes.push_back(p.bytes);
    }
    Schedule s;
    s.computeEndUs = computeEndUs;
    double previousReady = 0, previousEnd = 0;
    for (const std::vector<int>& members : assignBuckets(bytes, rule)) {
        ScheduledBucket b;
        b.nparams = int(members.size());
        for (const int i : members) {
            b.bytes += readyOrder[std::size_t(i)].bytes;
            b.readyUs = std::max(b.readyUs, readyOrder[std::size_t(i)].readyUs);
        }
        // The reducer launches buckets in order: a bucket ready early waits for the one before.
        b.readyUs = std::max(b.readyUs, previousReady);
        b.startUs = std::max(b.readyUs, previousEnd);
        b.endUs = b.startUs + cost.us(b.bytes);
        previousReady = b.readyUs;
        previousEnd = b.endUs;
        s.computeEndUs = std::max(s.computeEndUs, b.readyUs);
        s.buckets.push_back(b);
    }
    s.commEndUs = previousEnd;
    return s;
}

} // namespace commprof::analysis
