// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The fixtures too large for tests/data live in ../shared/fixtures beside the checkout. A suite
// that needs one and does not find it fails naming it: a skip or an uncaught exception would
// let a run that checked nothing pass, or abort without saying what was missing.

#include <QFile>
#include <QString>
#include <QTest>

// The large benchmark trace (54 MB uncompressed, 216,092 events).
inline const QString kLargeSharedTrace =
    COMMPROF_SHARED_FIXTURES "/traces/kineto_nccl_ddp_ws2_large_rank1.json.gz";

inline QString missingFixture(const QString& path) {
    return QString("missing fixture %1: the suite reads ../shared/fixtures beside the checkout")
        .arg(path);
}

#define REQUIRE_FIXTURE(path) QVERIFY2(QFile::exists(path), qPrintable(missingFixture(path)))
