// The in-process communicator: all-reduce, reduce and broadcast among replica threads give
// the exact rank-ordered sums on every rank, repeatedly; a missing rank times out with its
// name; abort releases the waiting ranks.

#include "strata/core/rng.h"
#include "strata/distribute/in_process_communicator.h"

#include "dist_test_helpers.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

using namespace strata;
using namespace strata::distribute;
using testing::onRanks;

namespace {


std::vector<float> randomBuffer(int rank, size_t n, uint64_t round)
{
    Rng rng(1000 + round, static_cast<uint64_t>(rank));
    std::vector<float> v(n);
    for (auto& x : v)
        x = static_cast<float>(rng.uniform(-1, 1));
    return v;
}

} // namespace

class TestCommunicator : public QObject {
    Q_OBJECT

private slots:
    void allReduce_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("count");
        for (int ranks : {1, 2, 3, 4})
            for (int count : {0, 1, 7, 1000, 100003})
                QTest::addRow("%d ranks, %d values", ranks, count) << ranks << count;
    }

    void allReduce()
    {
        QFETCH(int, ranks);
        QFETCH(int, count);
        InProcessCommunicator comm(ranks);
        const size_t n = static_cast<size_t>(count);
        std::vector<std::vector<float>> results(static_cast<size_t>(ranks));
        // Several rounds in a row: the barrier generations must not mix.
        for (uint64_t round = 0; round < 20; ++round) {
            std::vector<std::vector<float>> inputs;
            for (int r = 0; r < ranks; ++r)
                inputs.push_back(randomBuffer(r, n, round));
            const auto errors = onRanks(ranks, [&](int r) {
                auto data = inputs[static_cast<size_t>(r)];
                comm.allReduce(r, data, {});
                results[static_cast<size_t>(r)] = std::move(data);
            });
            for (const auto& e : errors)
                QVERIFY2(e.empty(), e.c_str());
            for (size_t i = 0; i < n; ++i) {
                // Summed in rank order, in float, on every rank: exactly equal.
                float expected = inputs[0][i];
                for (int r = 1; r < ranks; ++r)
                    expected += inputs[static_cast<size_t>(r)][i];
                QCOMPARE(results[0][i], expected);
            }
            for (int r = 1; r < ranks; ++r)
                QVERIFY(results[static_cast<size_t>(r)] == results[0]);
        }
    }

    void reduceAndBroadcast()
    {
        const int ranks = 3;
        InProcessCommunicator comm(ranks);
        std::vector<std::vector<float>> after(ranks);
        const auto errors = onRanks(ranks, [&](int r) {
            std::vector<float> data{float(r + 1), float(10 * (r + 1))};
            comm.reduce(r, 1, data, {});
            after[static_cast<size_t>(r)] = data;
        });
        for (const auto& e : errors)
            QVERIFY2(e.empty(), e.c_str());
        QCOMPARE(after[1], (std::vector<float>{6, 60}));
        QCOMPARE(after[0], (std::vector<float>{1, 10})); // others keep theirs
        QCOMPARE(after[2], (std::vector<float>{3, 30}));

        onRanks(ranks, [&](int r) {
            std::vector<float> data{float(r), float(-r)};
            comm.broadcast(r, 2, data, {});
            after[static_cast<size_t>(r)] = data;
        });
        for (int r = 0; r < ranks; ++r)
            QCOMPARE(after[static_cast<size_t>(r)], (std::vector<float>{2, -2}));
    }

    void missingRankTimesOutAndIsNamed()
    {
        InProcessCommunicator comm(3);
        CollectiveOptions options;
        options.timeout = std::chrono::milliseconds(200);
        const auto started = std::chrono::steady_clock::now();
        const auto errors = onRanks(2, [&](int r) { // rank 2 never comes
            std::vector<float> data{1, 2};
            comm.allReduce(r, data, options);
        });
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY(seconds < 5);
        for (const auto& e : errors) {
            QVERIFY2(QString::fromStdString(e).contains("timed out"), e.c_str());
            QVERIFY2(QString::fromStdString(e).contains("rank(s) 2"), e.c_str());
        }
        // The group stays failed: later collectives fail at once instead of hanging.
        std::vector<float> data{1};
        QVERIFY_THROWS_EXCEPTION(CollectiveError, comm.barrier(0, options));
    }

    void abortReleasesWaitingRanks()
    {
        InProcessCommunicator comm(2);
        std::string error;
        std::thread waiting([&] {
            try {
                std::vector<float> data{1};
                comm.allReduce(0, data, {});
            } catch (const CollectiveError& e) {
                error = e.what();
            }
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        comm.abort("replica 1 on cpu:1 failed: out of memory");
        waiting.join();
        QVERIFY2(QString::fromStdString(error).contains("replica 1 on cpu:1 failed"), error.c_str());
    }

    void mismatchedBuffersAreAnError()
    {
        InProcessCommunicator comm(2);
        const auto errors = onRanks(2, [&](int r) {
            std::vector<float> data(static_cast<size_t>(3 + r));
            comm.allReduce(r, data, {});
        });
        for (const auto& e : errors)
            QVERIFY2(QString::fromStdString(e).contains("different sizes"), e.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCommunicator)
#include "tst_communicator.moc"
