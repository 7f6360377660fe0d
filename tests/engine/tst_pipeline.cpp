#include "numbered_dataset.h"

#include "strata/core/error.h"
#include "strata/data/pipeline.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

using namespace strata;
using namespace strata::data;
using namespace testing;

namespace {

// The examples of one whole pass, in stream order.
std::vector<int64_t> pass(Pipeline& p)
{
    std::vector<int64_t> out;
    for (int64_t b = 0; b < p.batchesPerEpoch(); ++b) {
        const std::vector<int64_t> e = examples(p.next());
        out.insert(out.end(), e.begin(), e.end());
    }
    return out;
}

std::vector<int64_t> sorted(std::vector<int64_t> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

PipelineOptions options(int64_t batchSize, uint64_t seed = 1, int64_t prefetch = 0)
{
    PipelineOptions o;
    o.batchSize = batchSize;
    o.seed = seed;
    o.prefetch = prefetch;
    return o;
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT

private slots:
    void seededShuffle();
    void noShuffleKeepsOrder();
    void everyExampleOncePerPass_data();
    void everyExampleOncePerPass();
    void shardsAreDisjointAndCover_data();
    void shardsAreDisjointAndCover();
    void partialLastBatch();
    void dropRemainder();
    void invalidOptions();
    void seekMatchesFreshPipeline_data();
    void seekMatchesFreshPipeline();
    void prefetchMatchesSynchronous_data();
    void prefetchMatchesSynchronous();
    void producerErrorReachesConsumer_data();
    void producerErrorReachesConsumer();
    void destroyWithFullQueueDoesNotHang();
};

void TestPipeline::seededShuffle()
{
    const auto data = numbered(50);
    Pipeline a(data, range(0, 50), options(8, 7));
    Pipeline b(data, range(0, 50), options(8, 7));
    Pipeline c(data, range(0, 50), options(8, 8));
    const std::vector<int64_t> a0 = pass(a), a1 = pass(a);
    QCOMPARE(pass(b), a0);
    QCOMPARE(pass(b), a1);
    QVERIFY(a0 != a1);             // reshuffled every epoch
    QVERIFY(pass(c) != a0);        // another seed, another order
    QVERIFY(a0 != range(0, 50));   // shuffled at all
}

void TestPipeline::noShuffleKeepsOrder()
{
    PipelineOptions o = options(4);
    o.shuffle = false;
    Pipeline p(numbered(20), {9, 3, 5, 1, 0}, o);
    QCOMPARE(pass(p), (std::vector<int64_t>{9, 3, 5, 1, 0}));
    QCOMPARE(pass(p), (std::vector<int64_t>{9, 3, 5, 1, 0}));
}

void TestPipeline::everyExampleOncePerPass_data()
{
    QTest::addColumn<qint64>("examples");
    QTest::addColumn<qint64>("batchSize");
    QTest::addColumn<qint64>("prefetch");
    QTest::newRow("exact batches") << qint64(40) << qint64(8) << qint64(0);
    QTest::newRow("partial last batch") << qint64(37) << qint64(8) << qint64(0);
    QTest::newRow("batch larger than data") << qint64(5) << qint64(8) << qint64(2);
    QTest::newRow("batch of one, prefetch") << qint64(13) << qint64(1) << qint64(3);
}

void TestPipeline::everyExampleOncePerPass()
{
    QFETCH(qint64, examples);
    QFETCH(qint64, batchSize);
    QFETCH(qint64, prefetch);
    Pipeline p(numbered(examples), range(0, examples), options(batchSize, 3, prefetch));
    QCOMPARE(p.examplesPerEpoch(), examples);
    QCOMPARE(p.batchesPerEpoch(), (examples + batchSize - 1) / batchSize);
    for (int epoch = 0; epoch < 3; ++epoch)
        QCOMPARE(sorted(pass(p)), range(0, examples));
}

void TestPipeline::shardsAreDisjointAndCover_data()
{
    QTest::addColumn<qint64>("shards");
    QTest::newRow("1 shard") << qint64(1);
    QTest::newRow("2 shards") << qint64(2);
    QTest::newRow("3 shards (uneven)") << qint64(3);
    QTest::newRow("7 shards") << qint64(7);
}

void TestPipeline::shardsAreDisjointAndCover()
{
    QFETCH(qint64, shards);
    const auto data = numbered(40);
    const std::vector<int64_t> indices = range(5, 35); // a sub-range, as a validation split leaves
    std::vector<int64_t> seen;
    for (int64_t s = 0; s < shards; ++s) {
        PipelineOptions o = options(4, 9);
        o.shardCount = shards;
        o.shardIndex = s;
        Pipeline p(data, indices, o);
        const std::vector<int64_t> shard = sorted(pass(p));
        QCOMPARE(p.examplesPerEpoch(), int64_t(shard.size()));
        // tf.data's shard: positions s, s + k, s + 2k, ...
        for (int64_t e : shard)
            QCOMPARE((e - 5) % shards, s);
        seen.insert(seen.end(), shard.begin(), shard.end());
    }
    QCOMPARE(sorted(seen), indices); // disjoint (no duplicates) and covering
}

void TestPipeline::partialLastBatch()
{
    PipelineOptions o = options(4);
    o.shuffle = false;
    Pipeline p(numbered(10), range(0, 10), o);
    QCOMPARE(p.batchesPerEpoch(), 3);
    const std::vector<int64_t> sizes{4, 4, 2, 4};
    const std::vector<int64_t> epochs{0, 0, 0, 1};
    for (size_t i = 0; i < sizes.size(); ++i) {
        const Batch b = p.next();
        QCOMPARE(b.size(), sizes[i]);
        QCOMPARE(b.x.shape(), (Shape{sizes[i], 2}));
        QCOMPARE(b.y.shape(), Shape{sizes[i]});
        QCOMPARE(b.epoch, epochs[i]);
        QCOMPARE(b.index, int64_t(i % 3));
    }
}

void TestPipeline::dropRemainder()
{
    PipelineOptions o = options(4, 5);
    o.dropRemainder = true;
    Pipeline p(numbered(10), range(0, 10), o);
    QCOMPARE(p.batchesPerEpoch(), 2);
    for (int epoch = 0; epoch < 3; ++epoch) {
        const std::vector<int64_t> seen = pass(p);
        QCOMPARE(seen.size(), size_t(8));
        QCOMPARE(std::set<int64_t>(seen.begin(), seen.end()).size(), size_t(8)); // no repeats within a pass
    }
    const Batch next = p.next();
    QCOMPARE(next.size(), 4);
    QCOMPARE(next.epoch, 3);
    QCOMPARE(next.index, 0);

    // Not even one full batch.
    QVERIFY_THROWS_EXCEPTION(Error, Pipeline(numbered(3), range(0, 3), o));
}

void TestPipeline::invalidOptions()
{
    const auto data = numbered(10);
    PipelineOptions o = options(0);
    QVERIFY_THROWS_EXCEPTION(Error, Pipeline(data, range(0, 10), o));
    o = options(2);
    o.shardCount = 2;
    o.shardIndex = 2;
    QVERIFY_THROWS_EXCEPTION(Error, Pipeline(data, range(0, 10), o));
    o.shardIndex = -1;
    QVERIFY_THROWS_EXCEPTION(Error, Pipeline(data, range(0, 10), o));
    o = options(2);
    QVERIFY_THROWS_EXCEPTION(Error, Pipeline(data, {}, o)); // nothing to read
}

void TestPipeline::seekMatchesFreshPipeline_data()
{
    QTest::addColumn<qint64>("prefetch");
    QTest::addColumn<qint64>("consumedBefore"); // batches read before seeking
    QTest::addColumn<qint64>("target");
    QTest::newRow("sync, to start") << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("sync, mid epoch") << qint64(0) << qint64(2) << qint64(3);
    QTest::newRow("sync, later epoch") << qint64(0) << qint64(9) << qint64(25);
    QTest::newRow("prefetch, mid epoch") << qint64(2) << qint64(0) << qint64(3);
    QTest::newRow("prefetch, backwards after reading") << qint64(2) << qint64(6) << qint64(1);
    QTest::newRow("prefetch, later epoch") << qint64(4) << qint64(3) << qint64(25);
}

void TestPipeline::seekMatchesFreshPipeline()
{
    QFETCH(qint64, prefetch);
    QFETCH(qint64, consumedBefore);
    QFETCH(qint64, target);
    const auto data = numbered(23);
    Pipeline fresh(data, range(0, 23), options(5, 17, 0)); // 5 batches per epoch
    Batch expected;
    for (int64_t g = 0; g <= target; ++g)
        expected = fresh.next();

    Pipeline p(data, range(0, 23), options(5, 17, prefetch));
    for (int64_t i = 0; i < consumedBefore; ++i)
        p.next();
    p.seek(target);
    for (int k = 0; k < 3; ++k) {
        const Batch got = p.next();
        QCOMPARE(got.epoch, expected.epoch);
        QCOMPARE(got.index, expected.index);
        QCOMPARE(examples(got), examples(expected));
        expected = fresh.next();
    }
}

void TestPipeline::prefetchMatchesSynchronous_data()
{
    QTest::addColumn<qint64>("prefetch");
    QTest::newRow("prefetch 1") << qint64(1);
    QTest::newRow("prefetch 2") << qint64(2);
    QTest::newRow("prefetch 8") << qint64(8);
}

void TestPipeline::prefetchMatchesSynchronous()
{
    QFETCH(qint64, prefetch);
    const auto data = numbered(37);
    Pipeline sync(data, range(0, 37), options(6, 4, 0));
    Pipeline ahead(data, range(0, 37), options(6, 4, prefetch));
    for (int i = 0; i < 50; ++i) {
        const Batch a = sync.next();
        const Batch b = ahead.next();
        QCOMPARE(b.epoch, a.epoch);
        QCOMPARE(b.index, a.index);
        QCOMPARE(b.x.shape(), a.x.shape());
        QVERIFY(std::equal(a.x.values().begin(), a.x.values().end(), b.x.values().begin()));
        QVERIFY(std::equal(a.y.values().begin(), a.y.values().end(), b.y.values().begin()));
    }
}

void TestPipeline::producerErrorReachesConsumer_data()
{
    QTest::addColumn<qint64>("prefetch");
    QTest::newRow("synchronous") << qint64(0);
    QTest::newRow("prefetch") << qint64(2);
}

void TestPipeline::producerErrorReachesConsumer()
{
    QFETCH(qint64, prefetch);
    // Shrinking the dataset behind the pipeline's back makes batch 1 refer to missing examples.
    const auto data = numbered(10);
    PipelineOptions o = options(4, 0, prefetch);
    o.shuffle = false;
    Pipeline p(data, range(0, 10), o);
    data->truncate(5); // before next(): the producer starts on first use, so this is no data race
    QCOMPARE(examples(p.next()), (std::vector<int64_t>{0, 1, 2, 3}));
    QVERIFY_THROWS_EXCEPTION(InternalError, p.next());
    QVERIFY_THROWS_EXCEPTION(InternalError, p.next()); // stays failed rather than hanging
    p.seek(0);
    QCOMPARE(examples(p.next()), (std::vector<int64_t>{0, 1, 2, 3})); // a seek restarts it
}

void TestPipeline::destroyWithFullQueueDoesNotHang()
{
    std::atomic<bool> done = false;
    std::thread worker([&] {
        const auto data = numbered(100);
        for (int64_t prefetch : {1, 2, 4}) {
            auto p = std::make_unique<Pipeline>(data, range(0, 100), options(3, 1, prefetch));
            p->next(); // starts the producer
            std::this_thread::sleep_for(std::chrono::milliseconds(20)); // lets it fill the queue
            p->seek(5); // stops a producer blocked on the full queue
            p->next();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            p.reset(); // and so does the destructor
        }
        done = true;
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!done) {
        worker.detach(); // deadlocked: report it rather than hang the test run
        QFAIL("stopping a pipeline with a full prefetch queue hangs");
    }
    worker.join();
}

QTEST_GUILESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
