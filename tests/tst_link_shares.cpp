// SPDX-License-Identifier: GPL-3.0-or-later
// The cost samples a trace's collectives give the what-if (analysis/trace_ready_times.h): each
// collective's share of the link where gloo ran several at once, against shares worked out by
// hand below.
#include "analysis/trace_ready_times.h"

#include <QTest>

using namespace commprof;

namespace {

struct Collective {
    double bytes, launchMs, endMs;
    std::optional<double> startMs;
};

// Two ranks that ran one step alike (so no clock offset between them), one gradient a bucket.
std::vector<trace::DdpRankSteps> job(const std::vector<Collective>& collectives) {
    std::vector<trace::DdpRankSteps> ranks(2);
    for (trace::DdpRankSteps& r : ranks) {
        r.source = "hand-made";
        trace::DdpIteration& it = r.iterations.emplace_back();
        it.window = {0, 200'000};
        it.backwardStartUs = 0;
        for (std::size_t k = 0; k < collectives.size(); ++k) {
            const Collective& c = collectives[k];
            it.gradientReadyUs.push_back(c.launchMs * 1000);
            trace::BucketCollective& b = it.buckets.emplace_back();
            b.launchUs = c.launchMs * 1000;
            b.startUs = c.startMs ? std::optional<double>(*c.startMs * 1000) : std::nullopt;
            b.endUs = c.endMs * 1000;
            b.bytes = c.bytes;
            b.firstGradient = int(k);
            b.gradients = 1;
        }
        it.computeEndUs = it.gradientReadyUs.back();
        it.backwardEndUs = collectives.back().endMs * 1000;
    }
    return ranks;
}

std::vector<std::pair<double, double>> samples(const std::vector<Collective>& collectives) {
    const std::vector<trace::DdpRankSteps> ranks = job(collectives);
    QString why;
    const std::optional<analysis::TraceProfile> p =
        analysis::profileFromTraces({&ranks[0], &ranks[1]}, nullptr, &why);
    if (!p) {
        qWarning("%s", qPrintable(why));
        return {};
    }
    return p->costSamples;
}

} // namespace

class TestLinkShares : public QObject {
    Q_OBJECT
private slots:
    // gloo's two worker threads: an 8 MB all-reduce over 0-100 ms, a 1 KB one beside it over
    // 10-60 ms, a 2 MB one over 60-90 ms. The link was busy 100 ms for 10,001,000 bytes, so each
    // needs 0.0099990 ms a kB: 79.992, 0.010 and 19.998 ms. By hand, max-min fair:
    //   0-10   8 MB alone:                               8 MB 10
    //   10-60  1 KB takes its 0.010, 8 MB the rest:      8 MB 49.990
    //   60-90  8 MB still needs 20.002, 2 MB 19.998, both over half of 30: 15 each
    //   90-100 8 MB alone:                               8 MB 10
    // 8 MB: 84.990 ms, 2 MB: 15 ms; the 1 KB one gives no sample (its need is no measurement).
    void sharedLinkIsSplitMaxMinFair() {
        const auto s = samples({{8e6, 0, 100, 0}, {1e3, 10, 60, 10}, {2e6, 60, 90, 60}});
        QCOMPARE(s.size(), std::size_t(2));
        QCOMPARE(s[0].first, 8e6);
        QVERIFY(qAbs(s[0].second - 84'990.0) < 1.0);
        QCOMPARE(s[1].first, 2e6);
        QVERIFY(qAbs(s[1].second - 15'000.0) < 1.0);
    }

    // Two 1 MB all-reduces side by side over 0-20 ms, then a 2 MB one alone over 20-30 ms: 4 MB
    // in 30 ms, so they need 7.5, 7.5 and 15 ms. Over 0-20 both are past their need at their
    // equal 10 ms: neither waited on the other, the link was slower there for both, and the time
    // is split in proportion to their bytes, 10 ms each, both timed. The 2 MB one: its 10 ms.
    void collectivesPastTheirNeedAreSplitByBytes() {
        const auto s = samples({{1e6, 0, 20, 0}, {1e6, 0, 20, 0}, {2e6, 20, 30, 20}});
        QCOMPARE(s.size(), std::size_t(3));
        QVERIFY(qAbs(s[0].second - 10'000.0) < 1.0);
        QVERIFY(qAbs(s[1].second - 10'000.0) < 1.0);
        QVERIFY(qAbs(s[2].second - 10'000.0) < 1.0);
    }

    // Without the worker thread's spans the trace cannot show two at once: each runs from when
    // it was launched and the one before had ended (20-50 ms for the second, not 10-50).
    void withoutWorkerSpansOneRunsAfterTheOther() {
        const auto s = samples({{4e6, 0, 20, std::nullopt}, {4e6, 10, 50, std::nullopt}});
        QCOMPARE(s.size(), std::size_t(2));
        QVERIFY(qAbs(s[0].second - 20'000.0) < 1.0);
        QVERIFY(qAbs(s[1].second - 30'000.0) < 1.0);
    }

    // Two that ran one after the other on the worker threads keep their own times.
    void collectivesOneAfterTheOtherKeepTheirTimes() {
        const auto s = samples({{1e6, 0, 30, 5}, {3e6, 10, 70, 30}});
        QCOMPARE(s.size(), std::size_t(2));
        QVERIFY(qAbs(s[0].second - 25'000.0) < 1.0);
        QVERIFY(qAbs(s[1].second - 40'000.0) < 1.0);
    }
};

QTEST_GUILESS_MAIN(TestLinkShares)
#include "tst_link_shares.moc"
