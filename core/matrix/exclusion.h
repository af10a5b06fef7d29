// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The matrix's `exclude` rules as they bear on one model's product of axes (matrix/axes.h).
// Each rule fixes some axes to one value (a setting that is no axis of the model, to the layers
// whose settings have that value), so the cells it removes are a box of the product. The walk
// splits the product axis by axis, and the values of an axis that no live rule names share one
// branch: three 1,000-value lists whose every cell is excluded cost a few steps, not 10^9, and
// the count is exact without visiting the cells.

#include "matrix/axes.h"
#include "matrix/matrix.h"

#include <QtGlobal>

#include <functional>
#include <vector>

namespace commprof::matrix {

// Each distinct rule once, in the order first written: 400,000 aliases of one rule are one.
std::vector<ExcludeRule> distinctRules(const std::vector<ExcludeRule>& rules);

class ModelExclusions {
public:
    ModelExclusions(const std::vector<ExcludeRule>& rules, const ModelSpec& model,
                    const std::vector<Axis>& axes);
    // How many combinations no rule excludes, counted up to `cap` (the count if lower).
    qint64 countUpTo(qint64 cap) const;
    // The combinations of value indices no rule excludes, in the order of nested loops (the
    // last axis turns fastest); stops when `visit` returns false.
    void forEachKept(const std::function<bool(const std::vector<std::size_t>&)>& visit) const;

private:
    // A rule bound to this model's axes: for each axis the value indices it takes, empty where
    // the rule leaves the axis free.
    struct Bound {
        std::vector<std::vector<std::size_t>> at;
        std::size_t decidedAfter = 0; // 1 + the last axis it fixes (0: it fixes none)
    };
    using Live = std::vector<const Bound*>;
    // The live rules of each value of axis `d`: `named` for the values some rule fixes,
    // `others` for all the rest (the rules that leave the axis free).
    struct Split {
        std::vector<std::pair<std::size_t, Live>> named; // by value index, ascending
        Live others;
    };
    Split split(std::size_t d, const Live& live) const;
    qint64 count(std::size_t d, const Live& live, qint64 cap) const;
    bool walk(std::size_t d, const Live& live, std::vector<std::size_t>& at,
              const std::function<bool(const std::vector<std::size_t>&)>& visit) const;

    std::vector<std::size_t> sizes_;
    std::vector<Bound> rules_;
};

} // namespace commprof::matrix
