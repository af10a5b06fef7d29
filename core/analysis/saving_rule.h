// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one rule by which commprof advises a change, in `recommend` (cap_advice.h) and in
// `trace whatif` (whatif.h) alike: a setting is advised only where what it saves is beyond its
// uncertainty. A saving inside it is no advice (the settings differ by less than what the
// evidence can tell), and none at all (or a figure that is not a number) is none.

namespace commprof::analysis {

enum class Saving {
    None,              // nothing saved (or not a number)
    InsideUncertainty, // saved, but no more than the uncertainty
    BeyondUncertainty, // saved beyond the uncertainty: the one case that is advice
};

inline Saving judgeSaving(double savingMs, double uncertaintyMs) {
    return !(savingMs > 0)            ? Saving::None
           : savingMs > uncertaintyMs ? Saving::BeyondUncertainty
                                      : Saving::InsideUncertainty;
}

} // namespace commprof::analysis
