// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_record.h"

namespace commprof::results {

std::vector<const IterationRecord*> RankRecord::recorded() const {
    std::vector<const IterationRecord*> out;
    for (const IterationRecord& it : iterations) {
        if (it.iter >= recordFromIteration) {
            out.push_back(&it);
        }
    }
    return out;
}

} // namespace commprof::results
