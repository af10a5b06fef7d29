// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A hash table keyed by 64-bit ids (correlations, flow ids), open addressing with linear
// probing: a large trace looks ids up by the hundred thousand, and a sort plus binary searches,
// or std::unordered_map's node per id, cost more than the lookups themselves.

#include "huge_pages.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace commprof::trace {

template <class Value> class IdTable {
public:
    // Sized for `expected` ids; it grows past that as needed.
    explicit IdTable(std::size_t expected = 0) { rehash(capacityFor(expected)); }

    // The value of id, inserted as `fresh` when absent.
    Value& at(std::int64_t id, const Value& fresh) {
        if (2 * (used_ + 1) > slots_.size()) {
            rehash(2 * slots_.size());
        }
        Slot& slot = slots_[slotOf(id)];
        if (!slot.used) {
            slot = Slot{id, fresh, true};
            ++used_;
        }
        return slot.value;
    }

    // nullptr when absent.
    const Value* find(std::int64_t id) const {
        const Slot& slot = slots_[slotOf(id)];
        return slot.used ? &slot.value : nullptr;
    }

private:
    struct Slot {
        std::int64_t id = 0;
        Value value{};
        bool used = false;
    };

    static std::size_t capacityFor(std::size_t ids) {
        return std::bit_ceil(std::max<std::size_t>(16, 2 * ids));
    }

    // The slot holding id, or the free one where it would go.
    std::size_t slotOf(std::int64_t id) const {
        const std::size_t mask = slots_.size() - 1;
        std::size_t at = std::size_t((std::uint64_t(id) * 0x9E3779B97F4A7C15ull) >> shift_);
        while (slots_[at].used && slots_[at].id != id) {
            at = (at + 1) & mask;
        }
        return at;
    }

    void rehash(std::size_t capacity) {
        std::vector<Slot> old;
        reserveHuge(old, capacity); // a large trace's table is megabytes, written at random
        old.resize(capacity);
        old.swap(slots_);
        shift_ = 64 - std::countr_zero(capacity);
        for (const Slot& s : old) {
            if (s.used) {
                slots_[slotOf(s.id)] = s;
            }
        }
    }

    std::vector<Slot> slots_; // a power of two of them, at most half used
    std::size_t used_ = 0;
    int shift_ = 60; // 64 - log2(slots_.size()): the hash's top bits pick the slot
};

} // namespace commprof::trace
