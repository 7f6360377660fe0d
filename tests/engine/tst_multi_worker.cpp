// MultiWorkerMirrored through real strata-engine processes on 127.0.0.1, started as the
// launcher starts them (token on stdin): 1, 2 and 3 workers (x 1-2 local replicas) end with
// bitwise equal weights on every task, equal to OneDevice with the same global batch; a
// killed worker is named by the others within seconds, nothing is left running, and the
// rerun resumes to the exact step count and the weights of an uninterrupted job; a stopped
// worker is detected within the timeout; SIGTERM to a worker stops the job with one
// checkpoint; a missing worker, a missing token and FILE sharding without files are named;
// garbage sent to the rendezvous port leaves the job unaffected; TF_CONFIG works as in TF.

#include "dist_test_helpers.h"
#include "engine_job.h"
#include "engine_process.h"

#include "strata/rundir/checkpoint.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

using namespace testing;

namespace {

using Clock = std::chrono::steady_clock;


// The small MLP without Dropout (comparable across strategies), SGD with momentum; with
// `batchNorm`, a synchronized BatchNormalization after the first Dense layer (its batch
// statistics are the global batch's, so the job still computes what OneDevice does).
Json experiment(const Json& strategy, int64_t perReplicaBatch, int epochs = 3, bool batchNorm = false)
{
    Json doc = smallExperiment();
    doc["strategy"] = strategy;
    doc["training"]["batch_size"] = perReplicaBatch;
    doc["training"]["epochs"] = epochs;
    doc["model"]["layers"].erase(1);
    if (batchNorm)
        doc["model"]["layers"].insert(doc["model"]["layers"].begin() + 1,
                                      Json{{"type", "BatchNormalization"}, {"synchronized", true}});
    doc["training"]["optimizer"] = {{"type", "sgd"}, {"learning_rate", 0.05}, {"momentum", 0.9}};
    return doc;
}

// MultiWorkerMirrored over `workers` workers (and a chief when asked) on 127.0.0.1.
Json multiWorker(int workers, int localReplicas, int64_t perReplicaBatch, int epochs = 3, bool chief = false,
                 bool batchNorm = false)
{
    Json strategy{{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 5}};
    if (localReplicas > 1)
        strategy["devices"] = {"cpu:0", "cpu:1"};
    Json doc = experiment(strategy, perReplicaBatch, epochs, batchNorm);
    const int port = freePorts(chief ? workers + 1 : workers);
    Json tasks = Json::array();
    if (chief)
        tasks.push_back({{"type", "chief"}, {"node", "local"}, {"port", port}});
    tasks.push_back({{"type", "worker"}, {"node", "local"}, {"count", workers}, {"port", chief ? port + 1 : port}});
    doc["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}}, {"tasks", tasks}};
    return doc;
}

int rendezvousPort(const Json& doc) { return doc["cluster"]["tasks"][0]["port"].get<int>(); }



QStringList workerNames(int workers, bool chief = false)
{
    QStringList names;
    if (chief)
        names << "chief:0";
    for (int w = 0; w < workers; ++w)
        names << "worker:" + QString::number(w);
    return names;
}

} // namespace

class TestMultiWorker : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_count = 0;

    QString file(const Json& doc) { return writeExperiment(m_dir, doc, "exp-" + QString::number(++m_count) + ".strata.json"); }
    QString runDir(const QString& name) { return m_dir.filePath(name + "-" + QString::number(++m_count)); }

    // Runs a whole job; every task must complete. Returns the tasks' `done` events.
    std::vector<Json> runJob(const Json& doc, const QStringList& names, const QString& dir)
    {
        Job job(file(doc), names, dir);
        const bool ended = job.allExited(kStuck);
        std::vector<Json> done;
        for (int i = 0; i < job.size(); ++i) {
            const Json* d = job.task(i).last("done");
            if (!ended || !d || job.task(i).process->exitCode() != 0) {
                std::fprintf(stderr, "%s\n", qPrintable("What each task was doing:\n" + job.report()));
                QTest::qFail(qPrintable(job.task(i).name + " did not complete (each task's report above)"), __FILE__, __LINE__);
                return {};
            }
            done.push_back(*d);
        }
        return done;
    }

private Q_SLOTS:
    void sameWeightsAsOneDeviceWithTheGlobalBatch_data()
    {
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("local");
        QTest::addColumn<bool>("chief");
        QTest::addColumn<bool>("batchNorm");
        QTest::newRow("1 worker") << 1 << 1 << false << false;
        QTest::newRow("2 workers") << 2 << 1 << false << false;
        QTest::newRow("3 workers") << 3 << 1 << false << false;
        // From 4 tasks the gradients are all-reduced by halving-doubling (not a power of 2 here).
        QTest::newRow("5 workers, halving-doubling") << 5 << 1 << false << false;
        QTest::newRow("16 workers, halving-doubling") << 16 << 1 << false << false;
        QTest::newRow("1 worker x 2 replicas") << 1 << 2 << false << false;
        QTest::newRow("2 workers x 2 replicas") << 2 << 2 << false << false;
        QTest::newRow("chief + 2 workers") << 2 << 1 << true << false;
        QTest::newRow("2 workers, synchronized BatchNormalization") << 2 << 1 << false << true;
        QTest::newRow("2 workers x 2 replicas, synchronized BatchNormalization") << 2 << 2 << false << true;
    }

    void sameWeightsAsOneDeviceWithTheGlobalBatch()
    {
        QFETCH(int, workers);
        QFETCH(int, local);
        QFETCH(bool, chief);
        QFETCH(bool, batchNorm);
        const int replicas = (workers + (chief ? 1 : 0)) * local;
        const QString reference = runDir("one");
        const EngineResult one = runEngine({"train", file(experiment({{"type", "OneDevice"}}, 8 * replicas, 3, batchNorm)),
                                            "--run-dir", reference, "--events", "stdout"});
        QVERIFY2(one.exitCode == 0, qPrintable(one.errText()));

        const Json doc = multiWorker(workers, local, 8, 3, chief, batchNorm);
        const QString dir = runDir("mwms");
        const auto done = runJob(doc, workerNames(workers, chief), dir);
        QCOMPARE(int(done.size()), workers + (chief ? 1 : 0));
        for (const Json& d : done) {
            QCOMPARE(d["status"], Json("completed"));
            QCOMPARE(d["steps"], (*one.first("done"))["steps"]);
            QCOMPARE(d["weights_crc32"], done[0]["weights_crc32"]); // bitwise equal on every task
            QCOMPARE(d["train"]["loss"].get<double>(), done[0]["train"]["loss"].get<double>());
        }
        const double err = relativeError(weightsIn(dir + "/model.weights"), weightsIn(reference + "/model.weights"));
        qInfo("relative error against OneDevice: %.2e", err);
        QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));
        // The global loss and metrics, as OneDevice reports them.
        QVERIFY(std::abs(done[0]["train"]["loss"].get<double>() -
                         (*one.first("done"))["train"]["loss"].get<double>()) < 1e-4);
        QCOMPARE(done[0]["train"]["accuracy"].get<double>(), (*one.first("done"))["train"]["accuracy"].get<double>());
    }

    void evaluatorEvaluatesTheCheckpointsAsTheyAppear()
    {
        Json doc = multiWorker(2, 1, 8, 100);
        doc["cluster"]["tasks"].push_back({{"type", "evaluator"}, {"node", "local"}});
        const QString experiment = file(doc), dir = runDir("evaluator");
        // The evaluator first, until it watches the directory: started together on a loaded
        // machine, it could come up after the workers' last checkpoint and see only the end.
        Job evaluatorJob(experiment, {"evaluator:0"}, dir);
        QVERIFY_JOB(evaluatorJob.waitFor([&] { return evaluatorJob.task(0).last("log") || !evaluatorJob.task(0).running(); },
                                      kStuck), evaluatorJob, "");
        QVERIFY_JOB(evaluatorJob.task(0).last("log"), evaluatorJob, "");
        Job job(experiment, {"worker:0", "worker:1"}, dir);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        QVERIFY_JOB(evaluatorJob.allExited(kStuck), evaluatorJob, "");
        Task& evaluator = evaluatorJob.task(0);
        const Json* done = evaluator.last("done");
        QVERIFY_JOB(done, evaluatorJob, "");
        QCOMPARE((*done)["status"], Json("completed"));
        std::vector<int64_t> steps;
        const Json* final = nullptr;
        for (const auto& e : evaluator.events)
            if (e["type"] == "evaluation") {
                steps.push_back(e["step"].get<int64_t>());
                if (e["final"].get<bool>())
                    final = &e;
            }
        qInfo("%zu checkpoints evaluated", steps.size());
        QVERIFY2(steps.size() >= 2, "fewer than two checkpoints evaluated");
        QVERIFY(std::is_sorted(steps.begin(), steps.end()));
        QCOMPARE((*done)["evaluations"].get<size_t>(), steps.size());
        QVERIFY(final);
        // The final weights on the test split: what the chief itself reports.
        const Json* chiefDone = job.task(0).last("done");
        QCOMPARE((*final)["metrics"]["accuracy"], (*chiefDone)["test"]["accuracy"]);
        QCOMPARE((*final)["metrics"]["loss"].get<double>(), (*chiefDone)["test"]["loss"].get<double>());
        QCOMPARE((*final)["step"].get<int64_t>(), (*chiefDone)["steps"].get<int64_t>());
    }

    void placementShowsTasksAndReplicas()
    {
        const Json doc = multiWorker(2, 2, 8);
        Job job(file(doc), workerNames(2), runDir("placement"));
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        for (int i = 0; i < 2; ++i) {
            const Json* start = job.task(i).last("start");
            const Json* placement = job.task(i).last("placement");
            QVERIFY(start && placement);
            QCOMPARE((*start)["replicas"].get<int>(), 4);
            QCOMPARE((*start)["workers"].get<int>(), 2);
            QCOMPARE((*start)["batch_size"].get<int>(), 32);
            QCOMPARE((*placement)["task"].get<std::string>(), "worker:" + std::to_string(i));
            QCOMPARE((*placement)["tasks"], Json::array({"worker:0", "worker:1"}));
            QCOMPARE((*placement)["replicas"].size(), size_t(2));
            QCOMPARE((*placement)["total_replicas"].get<int>(), 4);
            QVERIFY((*placement)["reduction"]["algorithm"].get<std::string>().find("Gloo") != std::string::npos);
            const Json* step = job.task(i).last("step");
            QCOMPARE((*step)["replicas"].size(), size_t(2));
        }
        // Only the chief writes the run's shared files.
        QCOMPARE(job.task(0).count("checkpoint") > 0, true);
        QCOMPARE(job.task(1).count("checkpoint"), 0);
    }

    // bucket_bytes "auto": the job tunes in its first steps, the chief decides and both tasks
    // switch at the same step; training stays what OneDevice computes, bitwise equal on both
    // tasks; tuning.json tells the candidates, samples and choice; the last placement says so.
    void autoBucketsTuneAndAgree()
    {
        // 8 -> 512 -> 64 -> 3: buckets of 64 KiB make 2 of the gradient, larger ones 1; each
        // layout by the ring and by halving-doubling: 4 candidates.
        const auto withModel = [](Json doc) {
            doc["model"]["layers"] = Json::array({Json{{"type", "Dense"}, {"units", 512}, {"activation", "relu"}},
                                                  Json{{"type", "Dense"}, {"units", 64}, {"activation", "relu"}},
                                                  Json{{"type", "Dense"}, {"units", 3}, {"activation", "softmax"}}});
            return doc;
        };
        const QString reference = runDir("one");
        const EngineResult one = runEngine({"train", file(withModel(experiment({{"type", "OneDevice"}}, 16, 2))),
                                            "--run-dir", reference, "--events", "stdout"});
        QVERIFY2(one.exitCode == 0, qPrintable(one.errText()));
        Json doc = withModel(multiWorker(2, 1, 8, 2));
        doc["strategy"]["bucket_bytes"] = "auto";
        const QString dir = runDir("auto");
        Job job(file(doc), workerNames(2), dir);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        std::vector<Json> placements;
        for (int i = 0; i < 2; ++i) {
            const Json* done = job.task(i).last("done");
            QVERIFY_JOB(done && (*done)["status"] == "completed", job, "");
            QCOMPARE((*done)["weights_crc32"], (*job.task(0).last("done"))["weights_crc32"]);
            QCOMPARE((*done)["steps"], (*one.first("done"))["steps"]);
            placements.push_back((*job.task(i).last("placement"))["reduction"]);
            QCOMPARE(placements.back()["tuning"]["state"], Json("tuned"));
            QCOMPARE(placements.back()["tuning"]["candidates"], Json(4));
            bool told = false;
            for (const Json& e : job.task(i).events)
                told = told || (e["type"] == "log" && e["message"].get<std::string>().starts_with("tuned the gradient buckets"));
            QVERIFY(told);
        }
        // Both kept the same choice.
        QCOMPARE(placements[1]["bucket_bytes"], placements[0]["bucket_bytes"]);
        QCOMPARE(placements[1]["buckets"], placements[0]["buckets"]);
        QCOMPARE(placements[1]["tuning"], placements[0]["tuning"]);
        const double err = relativeError(weightsIn(dir + "/model.weights"), weightsIn(reference + "/model.weights"));
        QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));

        // The chief's log of it.
        QFile log(dir + "/tuning.json");
        QVERIFY(log.open(QIODevice::ReadOnly));
        const Json tuning = Json::parse(log.readAll().toStdString());
        QCOMPARE(tuning["task"], Json("worker:0"));
        QCOMPARE(tuning["ranks"], Json(2));
        QCOMPARE(tuning["decided_at_step"], Json(5 + 6 * 4));
        const Json& candidates = tuning["candidates"];
        QCOMPARE(candidates.size(), size_t(4));
        QCOMPARE(candidates[0]["default"], Json(true));
        QCOMPARE(candidates[0]["bucket_bytes"], Json(32 << 20));
        std::set<int> bucketCounts;
        for (const Json& c : candidates) {
            QCOMPARE(c["samples_us"].size(), size_t(5));
            for (const Json& us : c["samples_us"])
                QVERIFY(us.get<double>() > 0);
            QVERIFY(c["bytes_per_us"].get<double>() > 0);
            bucketCounts.insert(c["buckets"].get<int>());
        }
        QCOMPARE(bucketCounts, (std::set<int>{1, 2}));
        const Json& chosen = candidates[tuning["chosen"].get<size_t>()];
        QCOMPARE(placements[0]["bucket_bytes"], chosen["bucket_bytes"]);
        QCOMPARE(placements[0]["buckets"], chosen["buckets"]);
        QCOMPARE(placements[0]["tuning"]["all_reduce"], chosen["algorithm"]);
        // Not chosen unless it beat the default by the margin.
        if (tuning["chosen"] != 0)
            QVERIFY(chosen["bytes_per_us"].get<double>() >
                    candidates[0]["bytes_per_us"].get<double>() * (1 + tuning["margin"].get<double>()));
    }

    // Each task its own GPUs: a chief and two workers on one node of 6 GPUs (STRATA_NODE_GPUS
    // stands in for the driver, there being no GPU here) get two each, in task order, said in
    // their `hello`; the job trains as before (on the CPU, as asked).
    void eachTaskItsOwnGpus()
    {
        Json doc = multiWorker(2, 1, 8, 1, true);
        doc["strategy"]["devices"] = {"cpu:0"};
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("CUDA_VISIBLE_DEVICES");
        env.remove("TF_CONFIG");
        env.insert("STRATA_NODE_GPUS", "6");
        Job job(file(doc), workerNames(2, true), runDir("gpus"), "job-token", env);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const QStringList expected = {"0,1", "2,3", "4,5"};
        for (int i = 0; i < 3; ++i) {
            const Json* hello = job.task(i).last("hello");
            QVERIFY_JOB(hello && job.task(i).last("done"), job, job.task(i).name);
            QCOMPARE(QString::fromStdString((*hello)["cuda_visible_devices"].get<std::string>()), expected[i]);
        }
    }

    void killedWorkerIsNamedAndTheRerunResumesExactly()
    {
        const Json doc = multiWorker(2, 1, 8, 12);
        const QString experimentFile = file(doc);
        const int64_t total = 12 * 38;

        // The same job uninterrupted, for the weights it must end with.
        const QString reference = runDir("uninterrupted");
        const auto refDone = runJob(doc, workerNames(2), reference);
        QCOMPARE(int(refDone.size()), 2);

        const QString dir = runDir("killed");
        {
            Job job(experimentFile, workerNames(2), dir);
            QVERIFY_JOB(job.waitFor([&] { return job.task(0).lastStep() >= 150 || !job.task(0).running(); }, kStuck), job, "");
            QVERIFY_JOB(job.task(0).running(), job, QString("the job ended before the kill"));
            const auto killedAt = Clock::now();
            ::kill(static_cast<pid_t>(job.task(1).process->processId()), SIGKILL);
            const QString late = job.exitedWithin(15); // a task still running 15 s after the kill
            QVERIFY2(late.isEmpty(), qPrintable(late));
            const double seconds = std::chrono::duration<double>(Clock::now() - killedAt).count();
            qInfo("the survivor stopped %.2f s after worker:1 was killed", seconds);
            const Json* error = job.task(0).last("error");
            QVERIFY_JOB(error, job, QString("worker:0 reported no error"));
            const QString message = QString::fromStdString((*error)["message"].get<std::string>());
            QVERIFY2(message.contains("lost worker:1") && message.contains("killed or crashed"), qPrintable(message));
            QVERIFY(job.task(0).last("done") == nullptr);
        }
        // Rerun: resumes from the chief's last checkpoint and ends exactly where an
        // uninterrupted job ends.
        Job rerun(experimentFile, workerNames(2), dir);
        QVERIFY_JOB(rerun.allExited(kStuck), rerun, "");
        for (int i = 0; i < 2; ++i) {
            const Json* start = rerun.task(i).last("start");
            const Json* done = rerun.task(i).last("done");
            QVERIFY_JOB(done, rerun, "");
            QVERIFY((*start)["resumed_from_step"].is_number());
            QVERIFY((*start)["resumed_from_step"].get<int64_t>() >= 150 - 10); // every_steps is 10
            QCOMPARE((*done)["steps"].get<int64_t>(), total);
            QCOMPARE((*done)["weights_crc32"], refDone[0]["weights_crc32"]);
        }
        // The optimizer's update counter: no step lost or done twice.
        const auto last = strata::run::CheckpointDirectory((dir + "/checkpoints").toStdString()).latest();
        QVERIFY(last);
        QCOMPARE(last->extra["optimizer"]["iterations"].get<int64_t>(), total);
    }

    void stoppedWorkerIsDetectedWithinTheTimeout()
    {
        Json doc = multiWorker(2, 1, 8, 200);
        doc["strategy"]["timeout_seconds"] = 3;
        Job job(file(doc), workerNames(2), runDir("stalled"));
        QVERIFY_JOB(job.waitFor([&] { return job.task(0).lastStep() >= 100 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(0).lastStep() >= 100, job, "");
        const auto stoppedAt = Clock::now();
        ::kill(static_cast<pid_t>(job.task(1).process->processId()), SIGSTOP);
        QVERIFY_JOB(job.waitFor([&] { return !job.task(0).running(); }, kStuck), job, "");
        const double seconds = std::chrono::duration<double>(Clock::now() - stoppedAt).count();
        qInfo("worker:0 stopped %.2f s after worker:1 was stopped (timeout 3 s)", seconds);
        QVERIFY_JOB(seconds <= 3 + 5, job, QString("worker:0 stopped after %1 s").arg(seconds));
        const Json* error = job.task(0).last("error");
        QVERIFY_JOB(error, job, "");
        const QString message = QString::fromStdString((*error)["message"].get<std::string>());
        QVERIFY2(message.contains("lost worker:1") && message.contains("not responding"), qPrintable(message));
    }

    void sigtermStopsTheJobWithOneCheckpoint()
    {
        Json doc = multiWorker(2, 1, 8, 200);
        doc["training"]["checkpoint"] = {{"every_steps", 0}, {"every_epochs", 0}};
        Job job(file(doc), workerNames(2), runDir("preempted"));
        QVERIFY_JOB(job.waitFor([&] { return job.task(0).lastStep() >= 100 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(0).lastStep() >= 100, job, "");
        ::kill(static_cast<pid_t>(job.task(1).process->processId()), SIGTERM);
        const QString late = job.exitedWithin(15);
        QVERIFY2(late.isEmpty(), qPrintable(late));
        const Json* d0 = job.task(0).last("done");
        const Json* d1 = job.task(1).last("done");
        QVERIFY_JOB(d0 && d1, job, "");
        QCOMPARE((*d0)["status"], Json("stopped"));
        QCOMPARE((*d1)["status"], Json("stopped"));
        QCOMPARE((*d0)["steps"], (*d1)["steps"]);
        QCOMPARE(job.task(0).process->exitCode(), 0);
        QCOMPARE(job.task(1).process->exitCode(), 0);
        QCOMPARE(job.task(0).count("checkpoint"), 1);
        QCOMPARE((*job.task(0).last("checkpoint"))["step"], (*d0)["steps"]);
        QCOMPARE(job.task(1).count("checkpoint"), 0);
    }

    // A worker that starts long after the collectives' timeout (its host busy starting others)
    // still joins: the job waits for it the start-up allowance, not the timeout.
    void lateWorkerJoinsWithinTheStartupAllowance()
    {
        Json doc = multiWorker(2, 1, 8, 1);
        doc["strategy"]["timeout_seconds"] = 1;
        Job job(file(doc), {"worker:0"}, runDir("late"));
        QTest::qWait(3000); // worker:1 starts three timeouts late
        job.start("worker:1");
        const QString late = job.exitedWithin(60);
        QVERIFY2(late.isEmpty(), qPrintable(late));
        for (int i = 0; i < 2; ++i)
            QVERIFY_JOB(job.task(i).last("done"), job, "");
    }

    void missingWorkerIsNamed()
    {
        Json doc = multiWorker(2, 1, 8);
        doc["strategy"]["startup_timeout_seconds"] = 2;
        Job job(file(doc), {"worker:0"}, runDir("missing"));
        const QString late = job.exitedWithin(15);
        QVERIFY2(late.isEmpty(), qPrintable(late));
        const Json* error = job.task(0).last("error");
        QVERIFY_JOB(error, job, "");
        QVERIFY2(QString::fromStdString((*error)["message"].get<std::string>()).contains("worker:1 did not join the job within 2.0 s"),
                 (*error)["message"].get<std::string>().c_str());
    }

    void missingTokenIsNamed()
    {
        Job job(file(multiWorker(2, 1, 8)), {"worker:0"}, runDir("no-token"), "");
        const QString late = job.exitedWithin(15);
        QVERIFY2(late.isEmpty(), qPrintable(late));
        const Json* error = job.task(0).last("error");
        QVERIFY_JOB(error, job, "");
        QVERIFY2(QString::fromStdString((*error)["message"].get<std::string>()).contains("token on standard input"),
                 (*error)["message"].get<std::string>().c_str());
        QCOMPARE(job.task(0).process->exitCode(), 2);
    }

    void fileShardingWithoutFilesIsRefused()
    {
        Json doc = multiWorker(2, 1, 8);
        doc["data"]["shard_policy"] = "FILE";
        Job job(file(doc), workerNames(2), runDir("file-shard"));
        const QString late = job.exitedWithin(30);
        QVERIFY2(late.isEmpty(), qPrintable(late));
        for (int i = 0; i < 2; ++i) {
            const Json* error = job.task(i).last("error");
            QVERIFY_JOB(error, job, "");
            const QString m = QString::fromStdString((*error)["message"].get<std::string>());
            QVERIFY2(m.contains("FILE needs at least as many files as workers") || m.contains("lost worker:"),
                     qPrintable(m));
        }
        // The task that read the data itself names the cause.
        const QString first = QString::fromStdString((*job.task(0).last("error"))["message"].get<std::string>());
        const QString second = QString::fromStdString((*job.task(1).last("error"))["message"].get<std::string>());
        QVERIFY2(first.contains("0 files for 2 workers") || second.contains("0 files for 2 workers"),
                 qPrintable(first + " | " + second));
    }

    void garbageAtTheRendezvousLeavesTheJobUnaffected()
    {
        const Json doc = multiWorker(2, 1, 8, 6);
        const QString reference = runDir("clean");
        const auto clean = runJob(doc, workerNames(2), reference);
        QCOMPARE(int(clean.size()), 2);

        Job job(file(doc), workerNames(2), runDir("attacked"));
        int refused = 0;
        const auto attack = [&](const QByteArray& bytes) {
            const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(static_cast<uint16_t>(rendezvousPort(doc)));
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
                ::send(fd, bytes.data(), size_t(bytes.size()), MSG_NOSIGNAL);
                timeval tv{2, 0};
                ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
                char buf[8];
                // Closed without an answer (a reset when our bytes were left unread).
                const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n == 0 || (n < 0 && errno == ECONNRESET))
                    ++refused;
            }
            ::close(fd);
        };
        QVERIFY_JOB(job.waitFor([&] { return job.task(0).lastStep() >= 20 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(0).lastStep() >= 20, job, "");
        attack("GET / HTTP/1.0\r\n\r\n");                                             // garbage
        attack(QByteArray("\x0b\x00\x00\x00\x00\x00J\x04\x00\x00\x00" "abcd", 15));        // no token
        attack(QByteArray("\x12\x00\x00\x00\x07\x00wrongtkJ\x04\x00\x00\x00" "abcd", 22)); // wrong token
        QCOMPARE(refused, 3);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        for (int i = 0; i < 2; ++i) {
            const Json* done = job.task(i).last("done");
            QVERIFY_JOB(done, job, "");
            QCOMPARE((*done)["weights_crc32"], clean[0]["weights_crc32"]);
        }
    }

    void tfConfigNamesTheClusterAndTheTask()
    {
        const Json doc = multiWorker(2, 1, 8);
        const int port = rendezvousPort(doc);
        Json plain = doc;
        plain.erase("cluster"); // the cluster comes from TF_CONFIG only
        const QString experimentFile = file(plain);
        const QString dir = runDir("tf-config");
        std::vector<std::unique_ptr<Job>> jobs;
        for (int i = 0; i < 2; ++i) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            const Json config{{"cluster", {{"worker", {"127.0.0.1:" + std::to_string(port),
                                                       "127.0.0.1:" + std::to_string(port + 1)}}}},
                              {"task", {{"type", "worker"}, {"index", i}}}};
            env.insert("TF_CONFIG", QString::fromStdString(config.dump()));
            jobs.push_back(std::make_unique<Job>(experimentFile, QStringList{"worker:" + QString::number(i)}, dir,
                                                 "job-token", env, false));
        }
        for (auto& j : jobs)
            QVERIFY_JOB(j->allExited(kStuck), *j, "");
        const Json* d0 = jobs[0]->task(0).last("done");
        const Json* d1 = jobs[1]->task(0).last("done");
        QVERIFY_JOB(d0 && d1, *jobs[0], "");
        QCOMPARE((*d0)["task"], Json("worker:0"));
        QCOMPARE((*d1)["task"], Json("worker:1"));
        QCOMPARE((*d0)["weights_crc32"], (*d1)["weights_crc32"]);
    }
};

QTEST_GUILESS_MAIN(TestMultiWorker)
#include "tst_multi_worker.moc"
