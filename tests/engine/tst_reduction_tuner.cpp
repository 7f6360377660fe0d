// MultiWorkerMirrored's tuned reduction (distribute/reduction_tuner.h): the candidates a
// gradient gives, the schedule every rank follows alone, which steps are samples, medians,
// scores and the decision (the default on ties and within the margin).
#include "strata/distribute/reduction_tuner.h"

#include <QTest>

#include <set>

using namespace strata;
using namespace strata::distribute;

namespace {

constexpr int64_t KiB = 1024, MiB = 1024 * 1024;

// A gradient of variables of these sizes (bytes, in parameter order), split as the strategy
// splits it: whole variables from the last one down, each bucket closed once it holds `bytes`.
std::vector<int64_t> layoutOf(const std::vector<int64_t>& variables, int64_t bytes)
{
    std::vector<int64_t> buckets;
    int64_t open = 0;
    for (size_t i = variables.size(); i-- > 0;) {
        open += variables[i];
        if (open >= bytes || i == 0) {
            buckets.push_back(open);
            open = 0;
        }
    }
    return buckets;
}

ReductionChoice choice(int64_t bucketBytes, std::optional<AllReduceAlgorithm> algorithm = std::nullopt)
{
    return {bucketBytes, algorithm, {bucketBytes}};
}

// A tuner of `n` candidates (the first the default), `rounds` samples each.
ReductionTuner tuner(size_t n, int rounds = 5, int warmup = 2, double margin = 0.03)
{
    std::vector<ReductionChoice> candidates;
    for (size_t i = 0; i < n; ++i)
        candidates.push_back(choice(int64_t(i + 1) * MiB));
    return ReductionTuner(candidates, 1000000, {warmup, rounds, margin, 4});
}

// Runs the tuning schedule with each candidate's steps taking `microseconds(candidate, round)`
// (round -1: a step not sampled, the warm-up's or the first round's).
template <typename Time>
void sample(ReductionTuner& t, Time microseconds, int warmup = 2)
{
    const auto n = int64_t(t.candidates().size());
    for (int64_t step = 0; step < t.decisionStep(); ++step) {
        const int round = step < warmup ? -1 : int((step - warmup) / n) - 1;
        t.record(step, microseconds(t.candidateAt(step), round));
    }
}

} // namespace

class TestReductionTuner : public QObject {
    Q_OBJECT

private slots:
    void candidatesOfTheCnn()
    {
        // bench/README.md's CNN: conv1 (3.5 KiB), conv2 (72 KiB), dense1 (576 KiB), dense2 (2.5 KiB);
        // 3 buckets of 64 KiB, 2 of 256 KiB, 1 from the default down to 1 MiB.
        const std::vector<int64_t> cnn{3456, 128, 73728, 256, 589824, 256, 2560, 40};
        const auto layout = [&](int64_t bytes) { return layoutOf(cnn, bytes); };
        const auto two = reductionCandidates(2, 32 * MiB, layout);
        // Among 2 tasks the rule is the ring: each layout by the ring, then halving-doubling.
        QCOMPARE(two.size(), size_t(6));
        QCOMPARE(two[0].bucketBytes, 32 * MiB);
        QVERIFY(!two[0].algorithm);
        QCOMPARE(two[0].bucketSizes.size(), size_t(1));
        QCOMPARE(two[1].bucketBytes, 32 * MiB);
        QCOMPARE(two[1].algorithm, std::optional(AllReduceAlgorithm::HalvingDoubling));
        std::set<size_t> bucketCounts;
        for (const auto& c : two)
            bucketCounts.insert(c.bucketSizes.size());
        QCOMPARE(bucketCounts, (std::set<size_t>{1, 2, 3}));
        QCOMPARE(two[2].bucketBytes, 64 * KiB);
        QCOMPARE(two[2].bucketSizes.size(), size_t(3));
        QCOMPARE(two[4].bucketBytes, 256 * KiB);
        QCOMPARE(two[4].bucketSizes.size(), size_t(2));

        // Among 4 tasks the rule takes halving-doubling for these small buckets: the rule, then
        // the ring (halving-doubling is the rule already).
        const auto four = reductionCandidates(4, 32 * MiB, layout);
        QCOMPARE(four.size(), size_t(6));
        QCOMPARE(bucketAlgorithms(four[0], 4), std::vector<AllReduceAlgorithm>{AllReduceAlgorithm::HalvingDoubling});
        QCOMPARE(four[1].algorithm, std::optional(AllReduceAlgorithm::Ring));
    }

    void candidatesOfALargeGradient()
    {
        // 16 variables of 4 MiB: every size gives its own buckets; among 4 tasks the rule mixes
        // algorithms where buckets cross 4 MiB, a candidate of its own.
        const std::vector<int64_t> big(16, 4 * MiB);
        const auto layout = [&](int64_t bytes) { return layoutOf(big, bytes); };
        const auto four = reductionCandidates(4, 32 * MiB, layout);
        QCOMPARE(four[0].bucketBytes, 32 * MiB);
        QCOMPARE(four[0].bucketSizes, (std::vector<int64_t>{32 * MiB, 32 * MiB}));
        // 64 KiB to 4 MiB all give 16 buckets of one variable (4 MiB: halving-doubling by the rule).
        std::set<std::vector<int64_t>> layouts;
        for (const auto& c : four)
            layouts.insert(c.bucketSizes);
        QCOMPARE(layouts.size(), size_t(4)); // 16, 4, 2 and 1 buckets
        QCOMPARE(choiceAlgorithmText(four[0], 4), std::string("chunked ring"));
        ReductionChoice mixed{4 * MiB, std::nullopt, {4 * MiB, 8 * MiB}};
        QCOMPARE(choiceAlgorithmText(mixed, 4), std::string("halving-doubling up to 4096 KiB, the chunked ring above"));
    }

    void scheduleIsRotatedRounds()
    {
        ReductionTuner t = tuner(3, 4, 2);
        QCOMPARE(t.decisionStep(), int64_t(2 + 5 * 3));
        // Warm-up on the default.
        QCOMPARE(t.candidateAt(0), size_t(0));
        QCOMPARE(t.candidateAt(1), size_t(0));
        // Every round runs each candidate once, starting one further each round.
        for (int round = 0; round < 5; ++round) {
            std::set<size_t> ran;
            for (int k = 0; k < 3; ++k)
                ran.insert(t.candidateAt(2 + round * 3 + k));
            QCOMPARE(ran.size(), size_t(3));
            QCOMPARE(t.candidateAt(2 + round * 3), size_t(round % 3));
        }
    }

    void warmupAndFirstRoundDiscarded()
    {
        ReductionTuner t = tuner(2, 3, 4);
        for (int64_t step = 0; step < t.decisionStep(); ++step)
            t.record(step, double(step));
        // 4 warm-up steps and the first round (steps 4, 5) are not samples: 3 each remain.
        QCOMPARE(t.candidates()[0].samples.size(), size_t(3));
        QCOMPARE(t.candidates()[1].samples.size(), size_t(3));
        QCOMPARE(t.candidates()[0].samples.front(), 7.0); // round 1 starts at step 6 with candidate 1
        QCOMPARE(t.candidates()[1].samples.front(), 6.0);
        // Nothing after the decision step counts.
        t.record(t.decisionStep(), 1.0);
        QCOMPARE(t.candidates()[0].samples.size(), size_t(3));
    }

    void median_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("expected");
        QTest::newRow("none") << QList<double>{} << 0.0;
        QTest::newRow("one") << QList<double>{7} << 7.0;
        QTest::newRow("odd, an outlier") << QList<double>{5, 900, 3, 4, 6} << 5.0;
        QTest::newRow("even") << QList<double>{10, 2, 8, 4} << 6.0;
    }
    void median()
    {
        QFETCH(QList<double>, values);
        QFETCH(double, expected);
        QCOMPARE(distribute::median(std::vector<double>(values.begin(), values.end())), expected);
    }

    void scoreIsBytesPerMicrosecondOfTheMedianStep()
    {
        ReductionTuner t = tuner(2);
        // Candidate 1 has one very slow step: the median ignores it.
        sample(t, [](size_t c, int i) { return c == 0 ? 2000.0 : (i == 2 ? 90000.0 : 1000.0); });
        QCOMPARE(t.score(0), 1000000.0 / 2000);
        QCOMPARE(t.score(1), 1000000.0 / 1000);
        QCOMPARE(t.decide(), size_t(1));
    }

    void decision_data()
    {
        QTest::addColumn<QList<double>>("stepMicroseconds"); // per candidate, the default first
        QTest::addColumn<int>("chosen");
        QTest::newRow("a faster one wins") << QList<double>{1000, 1100, 800} << 2;
        QTest::newRow("a tie keeps the default") << QList<double>{1000, 1000, 1000} << 0;
        QTest::newRow("within the margin keeps the default") << QList<double>{1000, 980, 1010} << 0;
        QTest::newRow("just past the margin") << QList<double>{1000, 960, 1010} << 1;
        QTest::newRow("all slower keeps the default") << QList<double>{1000, 1500, 1200} << 0;
    }
    void decision()
    {
        QFETCH(QList<double>, stepMicroseconds);
        QFETCH(int, chosen);
        ReductionTuner t = tuner(size_t(stepMicroseconds.size()));
        // Noise around each candidate's time, the same spread for all.
        sample(t, [&](size_t c, int i) { return stepMicroseconds[qsizetype(c)] * (1 + 0.01 * ((i % 3) - 1)); });
        QCOMPARE(t.decide(), size_t(chosen));
    }

    // A faster median is not enough: the candidate must have been faster than the default in
    // 4 of the 5 rounds, step beside step (a slow spell that hit the default's steps in 2
    // rounds does not make another candidate win).
    void aCandidateMustWinMostRounds()
    {
        ReductionTuner t = tuner(2);
        // The default is slow in rounds 0-2 (a busy machine), fast in 3-4; the candidate steady.
        sample(t, [](size_t c, int i) { return c == 1 ? 1000.0 : (i < 3 ? 1500.0 : 900.0); });
        QCOMPARE(t.roundsWon(1), 3);
        QVERIFY(t.score(1) > t.score(0) * 1.03);
        QCOMPARE(t.decide(), size_t(0));
        ReductionTuner u = tuner(2);
        sample(u, [](size_t c, int i) { return c == 1 ? 1000.0 : (i < 4 ? 1500.0 : 900.0); });
        QCOMPARE(u.roundsWon(1), 4);
        QCOMPARE(u.decide(), size_t(1));
    }

    void adoptedChoiceRunsFromThenOn()
    {
        ReductionTuner t = tuner(3);
        QVERIFY(!t.decided());
        t.adopt(2);
        QVERIFY(t.decided());
        QCOMPARE(t.candidateAt(0), size_t(2));
        QCOMPARE(t.candidateAt(t.decisionStep() + 100), size_t(2));
        ReductionTuner u = tuner(3);
        u.adopt(7); // not a candidate (a garbled word from the chief): the default
        QCOMPARE(u.chosen(), size_t(0));
    }

    void reportSaysWhatWasMeasured()
    {
        ReductionTuner t = tuner(2, 3, 1);
        sample(t, [](size_t c, int) { return c == 0 ? 2000.0 : 1000.0; }, 1);
        t.adopt(t.decide());
        const auto j = t.report(2, "chief:0");
        QCOMPARE(j["task"].get<std::string>(), std::string("chief:0"));
        QCOMPARE(j["chosen"].get<int>(), 1);
        QCOMPARE(j["candidates"].size(), size_t(2));
        QCOMPARE(j["candidates"][0]["default"].get<bool>(), true);
        QCOMPARE(j["candidates"][0]["samples_us"].size(), size_t(3));
        QCOMPARE(j["candidates"][1]["median_us"].get<double>(), 1000.0);
        QCOMPARE(j["candidates"][1]["bytes_per_us"].get<double>(), 1000.0);
        QCOMPARE(j["speedup"].get<double>(), 2.0);
        QCOMPARE(j["candidates"][1]["rounds_won"].get<int>(), 3);
        QCOMPARE(j["rounds_to_win"].get<int>(), 3); // no more than the rounds
        QCOMPARE(j["decided_at_step"].get<int64_t>(), t.decisionStep());
    }

    void sizeText()
    {
        QCOMPARE(bucketSizeText(32 * MiB), std::string("32 MiB"));
        QCOMPARE(bucketSizeText(256 * KiB), std::string("256 KiB"));
        QCOMPARE(bucketSizeText(1000), std::string("1000 bytes"));
    }
};

QTEST_APPLESS_MAIN(TestReductionTuner)
#include "tst_reduction_tuner.moc"
