// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writes typed records through their field tables (results/rank_fields.h), the tables core's
// reader checks the same files with: rank{R}.json and sweep_rank{R}.json alike.

#include "json_writer.h"
#include "results/rank_fields.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace commprof::rank {
namespace field_writer {

using results::Need;

// One value as its field says: an Optional field's empty value is left out.
template <typename T> void put(JsonWriter& j, const char* key, Need, const T& v) {
    j.field(key, v);
}
inline void put(JsonWriter& j, const char* key, Need need, const std::string& v) {
    if (need != Need::Optional || !v.empty()) {
        j.field(key, v);
    }
}
template <typename T> void put(JsonWriter& j, const char* key, Need, const std::optional<T>& v) {
    if (v) {
        j.field(key, *v);
    }
}
template <typename T> void put(JsonWriter& j, const char* key, Need need, const std::vector<T>& v) {
    if (need == Need::Optional && v.empty()) {
        return;
    }
    j.beginArray(key);
    for (const T& e : v) {
        j.value(e);
    }
    j.endArray();
}

} // namespace field_writer

// The fields of `table` that sit in the object `in` ("" the record's own), in the table's order.
template <typename R>
void writeFields(JsonWriter& j, const std::vector<results::Field<R>>& table, const R& r,
                 const std::string& in = {}) {
    for (const results::Field<R>& f : table) {
        if (in == f.in) {
            std::visit([&](auto member) { field_writer::put(j, f.key, f.need, r.*member); },
                       f.member);
        }
    }
}

// An array of records, each through its table.
template <typename R>
void writeRecords(JsonWriter& j, const char* key, const std::vector<results::Field<R>>& table,
                  const std::vector<R>& records) {
    j.beginArray(key);
    for (const R& r : records) {
        j.beginObject();
        writeFields(j, table, r);
        j.endObject();
    }
    j.endArray();
}

} // namespace commprof::rank
