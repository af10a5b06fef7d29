#include "ddp_prediction.h"

#include <algorithm>
#include <map>

namespace commprof::analysis {

std::optional<DdpPrediction> predictDdp(const std::vector<RankFigures>& ranks,
                                        const LinearFit& fit) {
    if (fit.refused) {
        return std::nullopt;
    }
    DdpPrediction d;
    std::vector<double> measured, queued, hook, predicted;
    struct Samples {
        double bytes = 0;
        std::vector<double> measured, queued;
    };
    std::map<int, Samples> byIndex;
    for (const RankFigures& r : ranks) {
        std::map<int, std::vector<const BucketMatch*>> bySteps;
        for (const BucketMatch& b : r.agreement.buckets) {
            bySteps[b.iteration].push_back(&b);
        }
        for (const auto& [step, buckets] : bySteps) {
            double m = 0, q = 0, p = 0;
            bool complete = true;
            for (const BucketMatch* b : buckets) {
                complete = complete && b->backendUs.has_value();
                m += b->backendUs.value_or(0);
                q += b->queuedUs.value_or(0);
                p += fit.predictUs(b->bytes);
            }
            if (!complete) {
                continue; // a bucket without its backend span: no like-for-like sum
            }
            ++d.rankSteps;
            measured.push_back(m);
            queued.push_back(q);
            predicted.push_back(p);
            for (const BucketMatch* b : buckets) {
                Samples& s = byIndex[b->index];
                s.bytes = b->bytes;
                s.measured.push_back(*b->backendUs);
                s.queued.push_back(*b->queuedUs);
            }
        }
        if (r.agreement.steps > 0) {
            hook.push_back(r.agreement.hookUs / r.agreement.steps);
        }
    }
    if (d.rankSteps == 0) {
        return std::nullopt;
    }
    d.measuredUsPerStep = *median(measured);
    d.measuredMinUs = *std::min_element(measured.begin(), measured.end());
    d.measuredMaxUs = *std::max_element(measured.begin(), measured.end());
    d.queuedUsPerStep = *median(queued);
    d.predictedUsPerStep = *median(predicted);
    d.hookUsPerStep = median(hook).value_or(0);
    for (const auto& [index, s] : byIndex) {
        d.buckets.push_back({index, s.bytes, fit.predictUs(s.bytes), *median(s.measured),
                             *median(s.queued), int(s.measured.size())});
    }
    return d;
}

} // namespace commprof::analysis
