// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A record's fields described once, as Perfetto declares its tables: each field's JSON key, the
// object it sits in, its type (the member's), whether a file may leave it out, the bounds a
// reader accepts and the member of the typed record it fills. The rank file's tables
// (results/rank_fields.h, shared with commprof-rank's writer) and the trace summaries' (trace/
// summary_json.h, shared by `trace summarize` and the reduction's writer and reader) are rows of
// this one kind.
// Plain C++17 and header-only: commprof-rank includes it and links no Qt.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace commprof::spec {

// What a reader does with a field, and what the writer leaves out.
enum class Need {
    Required,  // refused when missing or wrong; always written
    Optional,  // may be missing, refused when wrong; the writer leaves out an empty value (an
               // empty string, array or optional)
    AsWritten, // figures kept beside the measurement, never checked: read when of its type,
               // left at the member's default otherwise; always written
};

inline constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();

// One field. An integer member is checked as an integer in [min, max]; a number one as finite
// and >= min (and <= max unless kNoLimit); an array's elements likewise.
template <typename Record> struct Field {
    using Member =
        std::variant<int Record::*, std::int64_t Record::*, double Record::*, bool Record::*,
                     std::string Record::*, std::optional<std::int64_t> Record::*,
                     std::optional<double> Record::*, std::vector<std::int64_t> Record::*,
                     std::vector<double> Record::*>;
    const char* key;
    const char* in; // the object that holds it: "" (the record's own), "config", "model.input"
    Need need;
    std::int64_t min;
    std::int64_t max;
    Member member;
};

} // namespace commprof::spec
