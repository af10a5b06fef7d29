// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace/intervals.h"

#include <QTest>

using commprof::trace::Span;
using commprof::trace::SpanSet;

class TstIntervals : public QObject {
    Q_OBJECT
private slots:
    void unionMergesOverlapsAndTouches() {
        const SpanSet s = SpanSet::unionOf({{5, 7}, {0, 2}, {1, 3}, {3, 4}, {9, 9}});
        QCOMPARE(s.spans().size(), std::size_t(2));
        QCOMPARE(s.spans()[0].start, 0.0);
        QCOMPARE(s.spans()[0].end, 4.0);
        QCOMPARE(s.length(), 6.0);
    }
    void intersectAndSubtract_data() {
        QTest::addColumn<double>("expectIntersect");
        QTest::addColumn<double>("expectSubtract");
        QTest::addColumn<int>("shift");
        QTest::newRow("disjoint") << 0.0 << 4.0 << 100;
        QTest::newRow("half") << 2.0 << 2.0 << 1;
        QTest::newRow("same") << 4.0 << 0.0 << 0;
    }
    void intersectAndSubtract() {
        QFETCH(double, expectIntersect);
        QFETCH(double, expectSubtract);
        QFETCH(int, shift);
        const SpanSet a = SpanSet::unionOf({{0, 2}, {10, 12}});
        const SpanSet b =
            SpanSet::unionOf({{0.0 + shift, 2.0 + shift}, {10.0 + shift, 12.0 + shift}});
        QCOMPARE(a.intersect(b).length(), expectIntersect);
        QCOMPARE(a.subtract(b).length(), expectSubtract);
        QCOMPARE(a.intersect(b).length() + a.subtract(b).length(), a.length());
    }
    void subtractHolePunching() {
        const SpanSet a = SpanSet::unionOf({{0, 10}});
        const SpanSet holes = SpanSet::unionOf({{1, 2}, {4, 5}, {9, 12}});
        const SpanSet d = a.subtract(holes);
        QCOMPARE(d.spans().size(), std::size_t(3));
        QCOMPARE(d.length(), 7.0);
    }
    void clipAndLengthWithinAgree() {
        const SpanSet a = SpanSet::unionOf({{0, 3}, {5, 8}, {10, 20}});
        const Span w{2, 12};
        QCOMPARE(a.clip(w).length(), 1.0 + 3.0 + 2.0);
        QCOMPARE(a.lengthWithin(w), a.clip(w).length());
        QCOMPARE(a.lengthWithin({30, 40}), 0.0);
    }
    void largeTimestampsKeepNanoseconds() {
        // Beyond 2^53 ns (HTA's "large integer" case) a double in microseconds still
        // resolves a few nanoseconds; float32 would lose whole seconds.
        const double base = 9007199254740.992 * 2;
        const SpanSet a = SpanSet::unionOf({{base, base + 1.0}});
        QVERIFY(std::abs(a.length() - 1.0) < 0.005);
    }
};

QTEST_APPLESS_MAIN(TstIntervals)
#include "tst_intervals.moc"
