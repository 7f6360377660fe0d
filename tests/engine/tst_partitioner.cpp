// ParameterServer variable placement (distribute/partitioner.h) against TensorFlow's own values:
// the examples of tf.distribute.experimental.partitioners' documentation and tests, the
// "div" row split of ParameterServerStrategyV2, and its round-robin counter.
#include "strata/distribute/partitioner.h"

#include <QTest>

using namespace strata;
using namespace strata::distribute;

namespace {

schema::PartitionerSpec fixedShards(int64_t n) { return {"FixedShards", n, 256 << 10, 0, 0}; }
schema::PartitionerSpec minSize(int64_t minBytes, int64_t maxShards) { return {"MinSize", 1, minBytes, 0, maxShards}; }
schema::PartitionerSpec maxSize(int64_t maxBytes, int64_t maxShards = 0) { return {"MaxSize", 1, 256 << 10, maxBytes, maxShards}; }

} // namespace

class TestPartitioner : public QObject {
    Q_OBJECT

private slots:
    void tensorflowsExamples_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<qint64>("a"); // num_shards / min_shard_bytes / max_shard_bytes
        QTest::addColumn<qint64>("maxShards");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("cols");
        QTest::addColumn<qint64>("shards");
        // FixedShardsPartitioner docs: num_shards=2 on [10, 3] gives [2, 1].
        QTest::newRow("fixed 2 of [10,3]") << "FixedShards" << 2LL << 0LL << 10LL << 3LL << 2LL;
        // More shards than rows: the partitioner itself clamps to shape[0].
        QTest::newRow("fixed 8 of [3,4]") << "FixedShards" << 8LL << 0LL << 3LL << 4LL << 3LL;
        // MinSizePartitioner docs, float [6, 1].
        QTest::newRow("min 4 max 2") << "MinSize" << 4LL << 2LL << 6LL << 1LL << 2LL;
        QTest::newRow("min 4 max 10") << "MinSize" << 4LL << 10LL << 6LL << 1LL << 6LL;
        QTest::newRow("min 1024 max 10") << "MinSize" << 1024LL << 10LL << 6LL << 1LL << 1LL;
        // The (and TF's test's) Embedding(1024, 1024) with 256 KiB and max_shards 2.
        QTest::newRow("embedding 1024x1024") << "MinSize" << (256LL << 10) << 2LL << 1024LL << 1024LL << 2LL;
        // Default max_shards (1): never split.
        QTest::newRow("min default max") << "MinSize" << 4LL << 1LL << 6LL << 1LL << 1LL;
        // MaxSizePartitioner docs, float [6, 1].
        QTest::newRow("max 4") << "MaxSize" << 4LL << 0LL << 6LL << 1LL << 6LL;
        QTest::newRow("max 4 max_shards 2") << "MaxSize" << 4LL << 2LL << 6LL << 1LL << 2LL;
        QTest::newRow("max 1024") << "MaxSize" << 1024LL << 0LL << 6LL << 1LL << 1LL;
        // variable_axis_size_partitioner: a row larger than the limit still gets a shard of its own.
        QTest::newRow("row over limit") << "MaxSize" << 8LL << 0LL << 5LL << 4LL << 5LL;
        // 10 rows of 3 floats (12 bytes), 40 bytes a shard: 3 rows fit, 4 shards.
        QTest::newRow("max 40 of [10,3]") << "MaxSize" << 40LL << 0LL << 10LL << 3LL << 4LL;
    }

    void tensorflowsExamples()
    {
        QFETCH(QString, type);
        QFETCH(qint64, a);
        QFETCH(qint64, maxShards);
        QFETCH(qint64, rows);
        QFETCH(qint64, cols);
        QFETCH(qint64, shards);
        schema::PartitionerSpec p;
        if (type == "FixedShards")
            p = fixedShards(a);
        else if (type == "MinSize")
            p = minSize(a, maxShards);
        else
            p = maxSize(a, maxShards);
        QCOMPARE(partitionCount(p, Shape{rows, cols}), shards);
    }

    void noPartitionerKeepsVariablesWhole()
    {
        QCOMPARE(partitionCount({}, Shape{1024, 1024}), int64_t{1});
        QCOMPARE(partitionCount(fixedShards(4), Shape{}), int64_t{1}); // a scalar has no first axis
    }

    void rowsSplitDivStyle()
    {
        // ParameterServerStrategyV2's comment: 10 rows in 4 partitions are 3, 3, 2, 2.
        QCOMPARE(shardRows(10, 4), (std::vector<int64_t>{3, 3, 2, 2}));
        QCOMPARE(shardRows(6, 2), (std::vector<int64_t>{3, 3}));
        QCOMPARE(shardRows(7, 7), (std::vector<int64_t>(7, 1)));
        QCOMPARE(shardRows(1024, 2), (std::vector<int64_t>{512, 512}));
    }

    void roundRobinCountsEveryShard()
    {
        // Two Dense layers on 2 ps with 2 fixed shards: kernel0 (2 shards), bias0 (2), kernel1, bias1.
        const std::vector<VariableDescription> vars = {
            {"dense/kernel", Shape{784, 128}}, {"dense/bias", Shape{128}},
            {"dense_1/kernel", Shape{128, 10}}, {"dense_1/bias", Shape{10}}};
        const auto placed = placeVariables(vars, fixedShards(2), 3);
        QCOMPARE(placed.size(), size_t{4});
        std::vector<int> order;
        for (const auto& v : placed)
            for (const auto& s : v.shards)
                order.push_back(s.ps);
        // One counter over all 8 shards, modulo 3 ps tasks.
        QCOMPARE(order, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1}));
        QCOMPARE(placed[0].shards[0].name, std::string("dense/kernel/part_0"));
        QCOMPARE(placed[0].shards[1].rowBegin, int64_t{392});
        QCOMPARE(placed[0].shards[1].shape, (Shape{392, 128}));
        QCOMPARE(placed[1].shards[1].shape, (Shape{64}));
    }

    void unsplitVariablesAdvanceTheCounterOnce()
    {
        // MinSize 256 KiB, max 2: only the 784x128 kernel (392 KiB) is split.
        const std::vector<VariableDescription> vars = {
            {"dense/kernel", Shape{784, 128}}, {"dense/bias", Shape{128}}, {"dense_1/kernel", Shape{128, 10}}};
        const auto placed = placeVariables(vars, minSize(256 << 10, 2), 2);
        QCOMPARE(placed[0].shards.size(), size_t{2});
        QCOMPARE(placed[0].shards[0].ps, 0);
        QCOMPARE(placed[0].shards[1].ps, 1);
        QCOMPARE(placed[1].shards.size(), size_t{1});
        QCOMPARE(placed[1].shards[0].name, std::string("dense/bias"));
        QCOMPARE(placed[1].shards[0].ps, 0);
        QCOMPARE(placed[2].shards[0].ps, 1);
        int64_t bytes = 0;
        for (const auto& s : placed[0].shards)
            bytes += s.bytes();
        QCOMPARE(bytes, int64_t{784 * 128 * 4});
    }
};

QTEST_APPLESS_MAIN(TestPartitioner)
#include "tst_partitioner.moc"
