// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The flags `commprof record` and `commprof confirm` share (--skip, --steps, --nproc), checked.

#include "cli_common.h"

#include <QString>

namespace commprof::cli {

struct RecordFlags {
    int skip = 5;  // steps left out first: DDP rebuilds its buckets after step 0
    int steps = 5; // steps traced (record) after them
    int nproc = 0; // 0: the command launches its ranks itself
};

// Empty when every flag given is within its range; else the message naming the flag.
QString parseRecordFlags(const Args& args, RecordFlags* out);

// Makes DIR, which must be missing or empty: a record never mixes its files with others.
// Empty on success, else the reason naming DIR.
QString prepareFreshFolder(const QString& dir);

} // namespace commprof::cli
