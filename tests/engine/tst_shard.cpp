// Input sharding among workers (data/shard.h) through the real Pipeline: every policy, with
// 1, 2 and 3 workers, checked for the properties multi-worker training relies on.
#include "numbered_dataset.h"

#include "strata/core/error.h"
#include "strata/data/pipeline.h"

#include <QTest>

#include <algorithm>
#include <set>

using namespace strata;
using namespace strata::data;
using namespace testing;

namespace {

constexpr int64_t kExamples = 23;
constexpr int64_t kGlobalBatch = 5; // divides among neither 2 nor 3 workers evenly
constexpr int64_t kEpochs = 3;

// Five files of 4, 5, 3, 6 and 5 examples: with 3 workers the shards are 10, 10 and 3.
std::shared_ptr<Dataset> fiveFiles() { return numbered(kExamples, {0, 4, 9, 12, 18}); }

bool sameValues(const Tensor& a, const Tensor& b)
{
    return a.shape() == b.shape() && std::equal(a.values().begin(), a.values().end(), b.values().begin());
}

bool sameBatch(const Batch& a, const Batch& b)
{
    return a.epoch == b.epoch && a.index == b.index && a.globalSize == b.globalSize && sameValues(a.x, b.x)
           && sameValues(a.y, b.y);
}

PipelineOptions options(ShardPolicy policy, int workers, int worker, bool shuffle, bool dropRemainder,
                        int64_t prefetch = 0)
{
    PipelineOptions o;
    o.batchSize = kGlobalBatch;
    o.seed = 11;
    o.shuffle = shuffle;
    o.dropRemainder = dropRemainder;
    o.prefetch = prefetch;
    o.shard = ShardSpec{policy, workers, worker};
    return o;
}

// batches[w][g]: batch g (over all passes) of worker w, and each worker's batches per pass.
struct Streams {
    std::vector<std::vector<Batch>> batches;
    std::vector<int64_t> steps;
    std::vector<int64_t> examplesPerEpoch;
    std::vector<ShardPolicy> policies;
};

Streams read(const std::shared_ptr<Dataset>& data, ShardPolicy policy, int workers, bool shuffle, bool drop,
             int64_t prefetch)
{
    Streams s;
    for (int w = 0; w < workers; ++w) {
        Pipeline p(data, range(0, data->size()), options(policy, workers, w, shuffle, drop, prefetch));
        s.steps.push_back(p.batchesPerEpoch());
        s.examplesPerEpoch.push_back(p.examplesPerEpoch());
        s.policies.push_back(p.shardPolicy());
        s.batches.emplace_back();
        for (int64_t g = 0; g < kEpochs * p.batchesPerEpoch(); ++g)
            s.batches.back().push_back(p.next());
    }
    return s;
}

std::vector<int64_t> sorted(std::vector<int64_t> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

class TestShard : public QObject {
    Q_OBJECT

private slots:
    void policyNames();
    void everyPolicy_data();
    void everyPolicy();
    void fileShardingFollowsRebatching();
    void dataShardingSplitsGlobalBatches();
    void fileNeedsAsManyFilesAsWorkers();
    void filesAreThoseOfTheIndices();
    void invalidSpecs();
    void fileStartsOfADataset();
};

void TestShard::policyNames()
{
    for (ShardPolicy p : {ShardPolicy::Auto, ShardPolicy::Off, ShardPolicy::File, ShardPolicy::Data})
        QCOMPARE(shardPolicyFromName(shardPolicyName(p)), p);
    try {
        shardPolicyFromName("HINT");
        QFAIL("an unknown policy was accepted");
    } catch (const ConfigError& e) {
        QCOMPARE(e.problems().front().path, std::string("data.shard_policy"));
    }
}

void TestShard::everyPolicy_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<bool>("files");    // the dataset records its files
    QTest::addColumn<QString>("applied"); // the policy applied with several workers
    QTest::addColumn<int>("workers");
    QTest::addColumn<bool>("shuffle");
    QTest::addColumn<bool>("drop");
    struct Case {
        const char* policy;
        bool files;
        const char* applied;
    };
    const Case cases[] = {{"OFF", true, "OFF"},
                          {"FILE", true, "FILE"},
                          {"DATA", true, "DATA"},
                          {"AUTO", true, "FILE"},   // 5 files: FILE
                          {"AUTO", false, "DATA"}}; // no files: DATA
    for (const Case& c : cases)
        for (int workers : {1, 2, 3})
            for (bool shuffle : {false, true})
                for (bool drop : {false, true})
                    QTest::addRow("%s%s, %d workers%s%s", c.policy, c.policy == std::string("AUTO")
                                                                        ? (c.files ? " (files)" : " (no files)")
                                                                        : "",
                                  workers, shuffle ? ", shuffle" : "", drop ? ", drop remainder" : "")
                        << c.policy << c.files << c.applied << workers << shuffle << drop;
}

void TestShard::everyPolicy()
{
    QFETCH(QString, policy);
    QFETCH(bool, files);
    QFETCH(QString, applied);
    QFETCH(int, workers);
    QFETCH(bool, shuffle);
    QFETCH(bool, drop);
    const ShardPolicy asked = shardPolicyFromName(policy.toStdString());
    const ShardPolicy expected = workers == 1 ? ShardPolicy::Off : shardPolicyFromName(applied.toStdString());
    const auto data = files ? fiveFiles() : numbered(kExamples);

    const Streams s = read(data, asked, workers, shuffle, drop, 0);
    const int64_t steps = s.steps[0];
    QVERIFY(steps > 0);
    for (int w = 0; w < workers; ++w) {
        QCOMPARE(s.policies[size_t(w)], expected);
        QCOMPARE(s.steps[size_t(w)], steps); // every worker takes part in every step
    }

    for (int64_t epoch = 0; epoch < kEpochs; ++epoch) {
        std::vector<std::vector<int64_t>> seen(static_cast<size_t>(workers)); // per worker, this pass
        for (int64_t k = 0; k < steps; ++k) {
            const int64_t g = epoch * steps + k;
            int64_t pieces = 0;
            for (int w = 0; w < workers; ++w) {
                const Batch& b = s.batches[size_t(w)][size_t(g)];
                QCOMPARE(b.epoch, epoch);
                QCOMPARE(b.index, k);
                QCOMPARE(b.globalSize, s.batches[0][size_t(g)].globalSize);
                QCOMPARE(b.x.shape(), (Shape{b.size(), 2})); // (0, 2) for an empty piece
                QCOMPARE(b.y.shape(), Shape{b.size()});
                const std::vector<int64_t> e = examples(b);
                seen[size_t(w)].insert(seen[size_t(w)].end(), e.begin(), e.end());
                pieces += b.size();
            }
            const int64_t globalSize = s.batches[0][size_t(g)].globalSize;
            QCOMPARE(globalSize, pieces);
            QVERIFY(globalSize > 0 && globalSize <= kGlobalBatch);
        }
        for (int w = 0; w < workers; ++w)
            QCOMPARE(int64_t(seen[size_t(w)].size()), s.examplesPerEpoch[size_t(w)]);

        // Each worker's share of the pass, and all workers' together.
        std::vector<int64_t> all;
        for (const auto& v : seen)
            all.insert(all.end(), v.begin(), v.end());
        const int64_t keptOfAll = drop ? kExamples / kGlobalBatch * kGlobalBatch : kExamples;
        if (expected == ShardPolicy::Off) {
            // Every worker reads all the data once per pass.
            for (const auto& v : seen) {
                QCOMPARE(int64_t(std::set<int64_t>(v.begin(), v.end()).size()), keptOfAll);
                QCOMPARE(int64_t(v.size()), keptOfAll);
            }
        } else {
            // Disjoint pieces covering the pass once.
            QCOMPARE(std::set<int64_t>(all.begin(), all.end()).size(), all.size());
            if (expected == ShardPolicy::Data)
                QCOMPARE(int64_t(all.size()), keptOfAll);
        }
        if (expected == ShardPolicy::File) {
            // Whole files: worker w reads the files f with f % W == w, each of its examples
            // once (a dropped remainder aside).
            for (int w = 0; w < workers; ++w) {
                std::vector<int64_t> own;
                for (int64_t e = 0; e < kExamples; ++e)
                    if (data->fileOf(e) % workers == w)
                        own.push_back(e);
                const auto& v = seen[size_t(w)];
                for (int64_t e : v)
                    QCOMPARE(data->fileOf(e) % workers, int64_t(w));
                const auto kept = drop ? int64_t(own.size()) / kGlobalBatch * kGlobalBatch : int64_t(own.size());
                QCOMPARE(int64_t(v.size()), kept);
                if (!drop)
                    QCOMPARE(sorted(v), own);
            }
        }
        if (!drop && expected != ShardPolicy::Off)
            QCOMPARE(sorted(all), range(0, kExamples));
    }

    // DATA (and one worker, whatever the policy) is one worker's stream cut per step: the W
    // pieces of a step, in worker order, are that worker's batch of the same global size.
    if (expected == ShardPolicy::Data || workers == 1) {
        Pipeline one(data, range(0, kExamples), options(ShardPolicy::Off, 1, 0, shuffle, drop));
        // The default options (AUTO, one worker) read the very same stream.
        PipelineOptions defaults = options(ShardPolicy::Auto, 1, 0, shuffle, drop);
        defaults.shard = ShardSpec{};
        Pipeline plain(data, range(0, kExamples), defaults);
        QCOMPARE(one.batchesPerEpoch(), steps);
        QCOMPARE(plain.batchesPerEpoch(), steps);
        for (int64_t g = 0; g < kEpochs * steps; ++g) {
            const Batch whole = one.next();
            QVERIFY(sameBatch(plain.next(), whole));
            QCOMPARE(whole.globalSize, whole.size());
            std::vector<float> x, y;
            for (int w = 0; w < workers; ++w) {
                const Batch& b = s.batches[size_t(w)][size_t(g)];
                QCOMPARE(b.globalSize, whole.size());
                x.insert(x.end(), b.x.values().begin(), b.x.values().end());
                y.insert(y.end(), b.y.values().begin(), b.y.values().end());
            }
            QVERIFY(std::equal(x.begin(), x.end(), whole.x.values().begin(), whole.x.values().end()));
            QVERIFY(std::equal(y.begin(), y.end(), whole.y.values().begin(), whole.y.values().end()));
        }
    }

    // Deterministic: pipelines built alike, here prefetching, give the same streams.
    const Streams again = read(data, asked, workers, shuffle, drop, 2);
    for (int w = 0; w < workers; ++w)
        for (size_t g = 0; g < s.batches[size_t(w)].size(); ++g)
            QVERIFY(sameBatch(again.batches[size_t(w)][g], s.batches[size_t(w)][g]));

    // seek() to any batch, forwards and backwards, with and without prefetching.
    const int64_t total = kEpochs * steps;
    for (int w = 0; w < workers; ++w)
        for (int64_t prefetch : {0, 2}) {
            Pipeline p(data, range(0, kExamples), options(asked, workers, w, shuffle, drop, prefetch));
            p.next();
            for (int64_t t = total - 1; t >= 0; t -= 2) {
                p.seek(t);
                QVERIFY(sameBatch(p.next(), s.batches[size_t(w)][size_t(t)]));
                if (t + 1 < total)
                    QVERIFY(sameBatch(p.next(), s.batches[size_t(w)][size_t(t + 1)]));
            }
        }
}

// FILE as tf.distribute rebatches each worker's own stream: global batch 3 is cut into
// pieces of 1 and 2, worker 0 taking them in that order and worker 1 the other way round.
void TestShard::fileShardingFollowsRebatching()
{
    // Files of 3, 2, 3 and 2 examples: worker 0 reads files 0 and 2, worker 1 files 1 and 3.
    const auto data = numbered(10, {0, 3, 5, 8});
    PipelineOptions o = options(ShardPolicy::File, 2, 0, false, false);
    o.batchSize = 3;
    Pipeline w0(data, range(0, 10), o);
    o.shard.workerIndex = 1;
    Pipeline w1(data, range(0, 10), o);
    QCOMPARE(w0.batchesPerEpoch(), 4);
    QCOMPARE(w1.batchesPerEpoch(), 4);
    QCOMPARE(w0.examplesPerEpoch(), 6);
    QCOMPARE(w1.examplesPerEpoch(), 4);
    const std::vector<std::vector<int64_t>> first{{0}, {1, 2}, {5}, {6, 7}};
    const std::vector<std::vector<int64_t>> second{{3, 4}, {8}, {9}, {}}; // runs out first
    const std::vector<int64_t> globalSizes{3, 3, 2, 2};
    for (size_t k = 0; k < 4; ++k) {
        const Batch a = w0.next();
        const Batch b = w1.next();
        QCOMPARE(examples(a), first[k]);
        QCOMPARE(examples(b), second[k]);
        QCOMPARE(a.globalSize, globalSizes[k]);
        QCOMPARE(b.globalSize, globalSizes[k]);
    }
    QCOMPARE(examples(w0.next()), std::vector<int64_t>{0}); // the next pass
    QCOMPARE(examples(w1.next()), (std::vector<int64_t>{3, 4}));
}

// DATA: each worker keeps its piece of every global batch; the last batch of 1 leaves
// worker 0 an empty piece.
void TestShard::dataShardingSplitsGlobalBatches()
{
    const auto data = numbered(7);
    PipelineOptions o = options(ShardPolicy::Data, 2, 0, false, false);
    o.batchSize = 3;
    Pipeline w0(data, range(0, 7), o);
    o.shard.workerIndex = 1;
    Pipeline w1(data, range(0, 7), o);
    QCOMPARE(w0.batchesPerEpoch(), 3);
    QCOMPARE(w0.examplesPerEpoch(), 2);
    QCOMPARE(w1.examplesPerEpoch(), 5);
    const std::vector<std::vector<int64_t>> first{{0}, {3}, {}};
    const std::vector<std::vector<int64_t>> second{{1, 2}, {4, 5}, {6}};
    for (size_t k = 0; k < 3; ++k) {
        QCOMPARE(examples(w0.next()), first[k]);
        QCOMPARE(examples(w1.next()), second[k]);
    }
}

void TestShard::fileNeedsAsManyFilesAsWorkers()
{
    const auto expectConfigError = [](const std::shared_ptr<Dataset>& data, int workers, const char* counts) {
        try {
            PipelineOptions o = options(ShardPolicy::File, workers, 0, true, false);
            o.batchSize = 6; // a piece for each worker
            Pipeline p(data, range(0, data->size()), o);
            QFAIL("FILE sharding accepted too few files");
        } catch (const ConfigError& e) {
            QCOMPARE(e.problems().front().path, std::string("data.shard_policy"));
            const std::string message = e.what();
            QVERIFY2(message.find(counts) != std::string::npos, message.c_str());
            QVERIFY2(message.find("data.shard_policy") != std::string::npos, message.c_str());
        }
    };
    expectConfigError(fiveFiles(), 6, "5 files for 6 workers");
    expectConfigError(numbered(kExamples), 2, "0 files for 2 workers"); // not read from files

    // AUTO falls back to DATA instead.
    PipelineOptions o = options(ShardPolicy::Auto, 6, 5, true, false);
    o.batchSize = 6;
    Pipeline p(fiveFiles(), range(0, kExamples), o);
    QCOMPARE(p.shardPolicy(), ShardPolicy::Data);
    // One worker needs no files at all.
    Pipeline one(numbered(kExamples), range(0, kExamples), options(ShardPolicy::File, 1, 0, true, false));
    QCOMPARE(one.shardPolicy(), ShardPolicy::Off);
}

// The files sharded are those the pipeline reads: a validation split that leaves out the
// last files leaves fewer to divide.
void TestShard::filesAreThoseOfTheIndices()
{
    const auto data = fiveFiles();
    const std::vector<int64_t> firstTwoFiles = range(0, 9);
    QVERIFY_THROWS_EXCEPTION(ConfigError,
                             Pipeline(data, firstTwoFiles, options(ShardPolicy::File, 3, 0, true, false)));
    Pipeline w1(data, firstTwoFiles, options(ShardPolicy::File, 2, 1, false, false));
    std::vector<int64_t> seen;
    for (int64_t b = 0; b < w1.batchesPerEpoch(); ++b) {
        const auto e = examples(w1.next());
        seen.insert(seen.end(), e.begin(), e.end());
    }
    QCOMPARE(seen, range(4, 9)); // the second file
    // Auto with 3 workers: only two files here, so DATA.
    Pipeline autoShard(data, firstTwoFiles, options(ShardPolicy::Auto, 3, 0, true, false));
    QCOMPARE(autoShard.shardPolicy(), ShardPolicy::Data);
}

void TestShard::invalidSpecs()
{
    const auto data = fiveFiles();
    const auto build = [&](ShardPolicy policy, int workers, int worker, int64_t batch) {
        PipelineOptions o = options(policy, workers, worker, true, false);
        o.batchSize = batch;
        Pipeline p(data, range(0, kExamples), o);
    };
    QVERIFY_THROWS_EXCEPTION(Error, build(ShardPolicy::Data, 2, 2, 4));  // no worker 2 of 2
    QVERIFY_THROWS_EXCEPTION(Error, build(ShardPolicy::Data, 2, -1, 4));
    QVERIFY_THROWS_EXCEPTION(Error, build(ShardPolicy::Data, 0, 0, 4));
    QVERIFY_THROWS_EXCEPTION(Error, build(ShardPolicy::Data, 3, 0, 2)); // 2 examples for 3 workers
    build(ShardPolicy::Data, 3, 0, 3);
    // drop_remainder leaving no step for anyone.
    PipelineOptions o = options(ShardPolicy::File, 3, 0, true, true);
    o.batchSize = 11;
    QVERIFY_THROWS_EXCEPTION(Error, Pipeline(data, range(0, kExamples), o));
}

void TestShard::fileStartsOfADataset()
{
    const auto data = fiveFiles();
    QCOMPARE(data->fileCount(), 5);
    QCOMPARE(data->fileOf(0), 0);
    QCOMPARE(data->fileOf(3), 0);
    QCOMPARE(data->fileOf(4), 1);
    QCOMPARE(data->fileOf(22), 4);
    data->truncate(10); // files 3 and 4 are no longer read
    QCOMPARE(data->fileCount(), 3);
    QCOMPARE(data->fileOf(9), 2);
    QCOMPARE(numbered(3)->fileCount(), 0);
    QVERIFY_THROWS_EXCEPTION(InternalError, numbered(5, {1, 3}));    // not from the first example
    QVERIFY_THROWS_EXCEPTION(InternalError, numbered(5, {0, 3, 3})); // an empty file
    QVERIFY_THROWS_EXCEPTION(InternalError, numbered(5, {0, 5}));    // past the end
}

QTEST_GUILESS_MAIN(TestShard)
#include "tst_shard.moc"
