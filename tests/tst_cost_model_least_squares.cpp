// SPDX-License-Identifier: GPL-3.0-or-later
// The one weighted least squares every collective cost is fitted by (analysis/least_squares.h),
// against the normal equations worked by hand.

#include "analysis/least_squares.h"

#include <QTest>

#include <cmath>

using commprof::analysis::LsFit;
using commprof::analysis::LsPoint;
using commprof::analysis::weightedLeastSquares;

class TstCostModelLeastSquares : public QObject {
    Q_OBJECT

private slots:
    // y = 1, 2, 4 at x = 0, 1, 2 (x1 = 1, equal weights): s11 = 3, s12 = 3, s22 = 5, s1y = 7,
    // s2y = 10, det = 6; a = (7*5 - 10*3)/6 = 5/6, b = (10*3 - 7*3)/6 = 3/2. Residuals 1/6,
    // -1/3, 1/6: their squares sum to 1/6, so a's standard error is sqrt(1/6 / 1 * 5/6).
    void byHand() {
        const LsFit f = weightedLeastSquares({{1, 0, 1}, {1, 1, 2}, {1, 2, 4}});
        QCOMPARE(f.points, 3);
        QCOMPARE(f.det, 6.0);
        QVERIFY(std::fabs(f.a - 5.0 / 6) < 1e-12);
        QVERIFY(std::fabs(f.b - 1.5) < 1e-12);
        QVERIFY(std::fabs(f.aStandardError(1.0 / 6) - std::sqrt(5.0 / 36)) < 1e-12);
    }

    // Weights count: the point at x = 2 weighted 3 is three points there. With y = 1, 2, 4 and
    // x = 2 taken thrice: s11 = 5, s12 = 7, s22 = 13, s1y = 15, s2y = 26, det = 16;
    // a = (15*13 - 26*7)/16 = 13/16, b = (26*5 - 15*7)/16 = 25/16.
    void weights() {
        const LsFit f = weightedLeastSquares({{1, 0, 1, 1}, {1, 1, 2, 1}, {1, 2, 4, 3}});
        QVERIFY(std::fabs(f.a - 13.0 / 16) < 1e-12);
        QVERIFY(std::fabs(f.b - 25.0 / 16) < 1e-12);
    }

    // One size cannot tell the two terms apart: det is 0 for the caller to refuse, and no
    // standard error is claimed from two points.
    void singularAndTooFew() {
        const LsFit one = weightedLeastSquares({{1, 5, 1}, {1, 5, 2}, {1, 5, 3}});
        QCOMPARE(one.det, 0.0);
        QCOMPARE(one.aStandardError(1), 0.0);
        const LsFit two = weightedLeastSquares({{1, 0, 1}, {1, 1, 2}});
        QVERIFY(std::fabs(two.a - 1) < 1e-12 && std::fabs(two.b - 1) < 1e-12);
        QCOMPARE(two.aStandardError(1), 0.0);
    }
};

QTEST_GUILESS_MAIN(TstCostModelLeastSquares)
#include "tst_cost_model_least_squares.moc"
