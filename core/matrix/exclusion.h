// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The matrix's `exclude` rules, indexed by the keys each rule fixes: a cell is looked up once
// per distinct set of keys, so 400,000 rules cost a cell a few hash lookups, not 400,000
// comparisons.

#include "matrix/matrix.h"

#include <QSet>
#include <QStringList>

#include <vector>

namespace commprof::matrix {

class ExcludeIndex {
public:
    explicit ExcludeIndex(const std::vector<ExcludeRule>& rules);
    // True when some rule's every key takes the rule's value in `cell` (its axes, else its
    // settings).
    bool excludes(const Cell& cell) const;

private:
    struct Group {
        QStringList keys;             // the keys its rules fix, in the rules' order
        QSet<QStringList> valueLists; // each rule's values for those keys
    };
    std::vector<Group> groups_;
};

} // namespace commprof::matrix
