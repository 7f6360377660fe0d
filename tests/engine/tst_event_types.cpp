// The typed events (strata/schema/events.h): each writer gives the JSON the engine wrote before
// they were typed, byte for byte (old runs replay; docs/event-schema.md), and each reader gives
// back what its writer was given, keeping the app's field rules for what does not read.

#include "strata/schema/events.h"

#include <QtTest>

using namespace strata::schema;
using Json = nlohmann::ordered_json;

namespace {

// A Mirrored run's `start` fields as Trainer wrote them (tests/app/tst_metrics_store.cpp's line).
const char* kStart = R"({"experiment":"fashion-mnist-mlp","run_dir":"runs/fm-1","strategy":"Mirrored","replicas":2,)"
                     R"("task_replicas":2,"workers":1,"epochs":2,"steps_per_epoch":500,"total_steps":1000,)"
                     R"("batch_size":64,"per_replica_batch_size":32,"params":101770,"train_examples":32000,)"
                     R"("validation_examples":4000,"test_examples":10000,"resumed_from_step":null})";

// A ParameterServer coordinator's, resumed.
const char* kPsStart = R"({"experiment":"ps","run_dir":"runs/ps","strategy":"ParameterServer","replicas":2,)"
                       R"("task_replicas":0,"workers":2,"ps":2,"epochs":3,"steps_per_epoch":20,"total_steps":60,)"
                       R"("batch_size":16,"per_replica_batch_size":16,"params":650,"train_examples":320,)"
                       R"("validation_examples":0,"test_examples":0,"resumed_from_step":40})";

const char* kEpoch = R"({"epoch":0,"epochs":2,"step":500,"train":{"loss":0.5,"accuracy":0.8125},)"
                     R"("validation":{"loss":0.625,"accuracy":0.75},"seconds":3.5})";

const char* kMirroredPlacement =
    R"({"strategy":"Mirrored","requested_strategy":"TPU","replicas":[{"replica":0,"device":"cpu:0","threads":2},)"
    R"({"replica":1,"device":"cpu:1","threads":2}],"per_replica_batch_size":16,"global_batch_size":32,)"
    R"("learning_rate":{"base":0.05,"scaled":0.1,"rule":"linear"},"precision":{"compute":"float32",)"
    R"("variables":"float32","gemm":"float32","convolution":"float32","loss_scaling":"none"},)"
    R"("variables":[{"name":"dense/kernel","shape":[12,16],"bytes":768,"devices":["cpu:0","cpu:1"]}],)"
    R"("reduction":{"cross_device_ops":"nccl_all_reduce","algorithm":"ring","bytes_per_step":768}})";

const char* kMultiWorkerPlacement =
    R"({"strategy":"MultiWorkerMirrored","replicas":[{"replica":0,"device":"cpu:0","threads":1}],)"
    R"("per_replica_batch_size":8,"global_batch_size":16,"learning_rate":{"base":0.01,"scaled":0.01,"rule":"none"},)"
    R"("precision":{"compute":"float32","variables":"float32","gemm":"float32","convolution":"float32",)"
    R"("loss_scaling":"none"},"task":"worker:1","workers":2,"tasks":["chief:0","worker:1"],"total_replicas":2,)"
    R"("variables":[],"reduction":{"algorithm":"ring in 1 bucket","bucket_bytes":26214400,"buckets":1,)"
    R"("bytes_per_step":40}})";

const char* kPsPlacement =
    R"({"strategy":"ParameterServer","replicas":[],"per_replica_batch_size":16,"global_batch_size":16,)"
    "\"learning_rate\":{\"base\":0.1,\"scaled\":0.1,\"rule\":\"none (each update is one worker's batch)\"},"
    R"("precision":{"compute":"float32","variables":"float32","gemm":"float32","convolution":"float32",)"
    R"("loss_scaling":"none"},"worker_tasks":["worker:0","worker:1"],"ps_tasks":["ps:0","ps:1"],)"
    R"("partitioner":{"type":"none"},"max_staleness":null,"variables":[{"name":"dense/kernel","shape":[4,2],)"
    R"("bytes":32,"devices":["ps:0","ps:1"],"shards":[{"name":"dense/kernel/part_0","ps":"ps:0","rows":[0,2],)"
    R"("bytes":16},{"name":"dense/kernel/part_1","ps":"ps:1","rows":[2,4],"bytes":16}]}],)"
    "\"reduction\":{\"algorithm\":\"parameter servers (asynchronous)\",\"bytes_per_step\":64}}";

} // namespace

class TestEventTypes : public QObject {
    Q_OBJECT

private slots:
    void startEventsRoundTripByteForByte()
    {
        for (const char* line : {kStart, kPsStart}) {
            const StartEvent e = readStartEvent(Json::parse(line));
            QCOMPARE(QString::fromStdString(toJson(e).dump()), QString::fromUtf8(line));
        }
        const StartEvent ps = readStartEvent(Json::parse(kPsStart));
        QCOMPARE(ps.ps, std::optional<int64_t>(2));
        QCOMPARE(ps.resumedFromStep, std::optional<int64_t>(40));
        QVERIFY(!readStartEvent(Json::parse(kStart)).ps);
    }

    void epochEventsRoundTripByteForByte()
    {
        const EpochEvent e = readEpochEvent(Json::parse(kEpoch));
        QCOMPARE(QString::fromStdString(toJson(e).dump()), QString::fromUtf8(kEpoch));
        QCOMPARE(e.train.size(), size_t(2));
        QCOMPARE(e.train[1].first, std::string("accuracy"));
        QVERIFY(e.validation);
        EpochEvent without = e;
        without.validation.reset();
        QVERIFY(!toJson(without).contains("validation"));
    }

    void placementsRoundTripByteForByte()
    {
        for (const char* line : {kMirroredPlacement, kMultiWorkerPlacement, kPsPlacement}) {
            const PlacementEvent e = readPlacementEvent(Json::parse(line));
            QCOMPARE(QString::fromStdString(toJson(e).dump()), QString::fromUtf8(line));
        }
        const PlacementEvent ps = readPlacementEvent(Json::parse(kPsPlacement));
        QVERIFY(ps.parameterServer);
        QVERIFY(!ps.parameterServer->maxStaleness);
        QCOMPARE(ps.variables[0].shards->at(1).rowBegin, int64_t(2));
        QVERIFY(!readPlacementEvent(Json::parse(kMirroredPlacement)).multiWorker);
    }

    void fieldsThatDoNotReadKeepTheirDefaults()
    {
        const Json odd = Json::parse(R"({"experiment":7,"replicas":"two","epochs":2.9,"ps":1e300,)"
                                     R"("resumed_from_step":"x"})");
        const StartEvent e = readStartEvent(odd);
        QCOMPARE(e.experiment, std::string());
        QCOMPARE(e.replicas, int64_t(0));
        QCOMPARE(e.epochs, int64_t(2)); // a float is truncated, as the app reads it
        QVERIFY(!e.ps);                 // beyond int64: no integer
        QVERIFY(!e.resumedFromStep);
        const EpochEvent epoch = readEpochEvent(Json::parse(R"({"train":[1,2],"validation":3})"));
        QVERIFY(epoch.train.empty());
        QVERIFY(!epoch.validation);
        QCOMPARE(readPlacementEvent(Json::array()).strategy, std::string());
        const PlacementEvent p = readPlacementEvent(Json::parse(R"({"replicas":[1,{"device":"cpu:3"}],"variables":{}})"));
        QCOMPARE(p.replicas.size(), size_t(1));
        QCOMPARE(p.replicas[0].device, std::string("cpu:3"));
        QCOMPARE(p.replicas[0].threads, int64_t(1)); // no threads: one, as the app has always read it
        QVERIFY(p.variables.empty());
    }

    // A MultiWorkerMirrored or ParameterServer part is there when any of its fields is, each
    // read on its own.
    void aPlacementsPartIsThereWhenAnyOfItsFieldsIs()
    {
        const PlacementEvent m = readPlacementEvent(Json::parse(R"({"strategy":"MultiWorkerMirrored","total_replicas":4})"));
        QVERIFY(m.multiWorker);
        QCOMPARE(m.multiWorker->totalReplicas, int64_t(4));
        QVERIFY(m.multiWorker->tasks.empty());
        QVERIFY(!m.parameterServer);
        const PlacementEvent ps = readPlacementEvent(Json::parse(R"({"worker_tasks":["worker:0"],"max_staleness":3})"));
        QVERIFY(ps.parameterServer);
        QCOMPARE(ps.parameterServer->workerTasks, std::vector<std::string>{"worker:0"});
        QCOMPARE(ps.parameterServer->maxStaleness, std::optional<int64_t>(3));
        QVERIFY(ps.parameterServer->psTasks.empty());
        QVERIFY(!ps.multiWorker);
    }

    // An integer beyond int64 converts as nlohmann's get<int64_t>() (and the app's step reader)
    // converts it: an unsigned wraps; a float beyond the range is none (above).
    void integersConvertAsTheAppConvertsThem()
    {
        const StartEvent e =
            readStartEvent(Json::parse(R"({"total_steps":18446744073709551615,"params":9223372036854775808})"));
        QCOMPARE(e.totalSteps, int64_t(-1));
        QCOMPARE(e.params, INT64_MIN);
    }

    // What the caller falls back on for a field absent or of another type; the fields that read
    // replace it.
    void readersKeepTheCallersDefaults()
    {
        StartEvent start;
        start.experiment = "?";
        start.replicas = 1;
        start.totalSteps = 70;
        start.resumedFromStep = 5;
        const StartEvent old = readStartEvent(Json::parse(R"({"strategy":"OneDevice","total_steps":"many"})"), start);
        QCOMPARE(old.experiment, std::string("?"));
        QCOMPARE(old.strategy, std::string("OneDevice"));
        QCOMPARE(old.replicas, int64_t(1));
        QCOMPARE(old.totalSteps, int64_t(70));
        QCOMPARE(old.resumedFromStep, std::optional<int64_t>(5)); // null: the default stays
        QCOMPARE(readStartEvent(Json::parse(kStart), start).replicas, int64_t(2));
        QCOMPARE(readStartEvent(Json(), start).totalSteps, int64_t(70));

        EpochEvent epoch;
        epoch.step = 120;
        const EpochEvent without = readEpochEvent(Json::parse(R"({"epoch":1,"train":{"loss":0.5}})"), epoch);
        QCOMPARE(without.step, int64_t(120));
        QCOMPARE(without.epoch, int64_t(1));
        QCOMPARE(without.train.size(), size_t(1));
        QCOMPARE(readEpochEvent(Json::parse(kEpoch), epoch).step, int64_t(500));
    }
};

QTEST_GUILESS_MAIN(TestEventTypes)
#include "tst_event_types.moc"
