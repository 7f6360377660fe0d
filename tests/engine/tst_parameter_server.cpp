// ParameterServer through real strata-engine processes on 127.0.0.1 (a chief that
// coordinates, workers, ps tasks), started as the launcher starts them (token on stdin):
// the default MLP reaches OneDevice's test accuracy after the same examples; with
// max_staleness 0 and one worker the weights are OneDevice's; a killed worker's steps go to
// the others and a restarted one is re-admitted and given work within 10 s, with an exact
// step count; a killed ps or coordinator stops the job naming it and the rerun resumes from
// the last checkpoint, and a coordinator relaunched alone takes its running job back; peers without the job's keys, or sending garbage, are refused and
// counted while training goes on; TF_CONFIG with ps tasks works as in TensorFlow.

#include "datasets.h"
#include "dist_test_helpers.h"
#include "engine_job.h"

#include "strata/rundir/checkpoint.h"

#include <QtTest>

#include <zmq.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

using namespace testing;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A ParameterServer cluster on 127.0.0.1: chief, `workers` workers, `ps` ps tasks.
Json psCluster(int workers, int ps)
{
    const int port = freePorts(1 + workers + ps);
    Json tasks = Json::array({{{"type", "chief"}, {"node", "local"}, {"port", port}},
                              {{"type", "worker"}, {"node", "local"}, {"count", workers}, {"port", port + 1}},
                              {{"type", "ps"}, {"node", "local"}, {"count", ps}, {"port", port + 1 + workers}}});
    return {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}}, {"tasks", tasks}};
}

QStringList psNames(int workers, int ps)
{
    QStringList names{"chief:0"};
    for (int i = 0; i < ps; ++i)
        names << "ps:" + QString::number(i);
    for (int i = 0; i < workers; ++i)
        names << "worker:" + QString::number(i);
    return names;
}

// A run long enough to kill tasks in (thousands of steps of a wider MLP), checkpointed.
Json longRun(int workers, int ps)
{
    Json doc = smallExperiment();
    doc["model"]["layers"] = Json::parse(R"([{"type": "Dense", "units": 256, "activation": "relu"},
                                             {"type": "Dense", "units": 3, "activation": "softmax"}])");
    doc["model"]["input_shape"] = {64};
    doc["data"]["source"]["samples"] = 2000;
    doc["data"]["source"]["features"] = 64;
    doc["training"]["epochs"] = 40;
    doc["training"]["checkpoint"] = {{"every_steps", 200}};
    // Short enough to see losses quickly, long enough that a loaded CI machine loses nobody.
    doc["strategy"] = {{"type", "ParameterServer"}, {"timeout_seconds", 2}};
    doc["cluster"] = psCluster(workers, ps);
    return doc;
}


int indexOf(Job& job, const QString& name)
{
    for (int i = 0; i < job.size(); ++i)
        if (job.task(i).name == name)
            return i;
    return -1;
}

const Json* lastOf(Task& t, const std::string& type, const std::function<bool(const Json&)>& match)
{
    for (auto it = t.events.rbegin(); it != t.events.rend(); ++it)
        if ((*it)["type"] == type && match(*it))
            return &*it;
    return nullptr;
}

} // namespace

class TestParameterServer : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_count = 0;

    QString file(const Json& doc) { return writeExperiment(m_dir, doc, "exp-" + QString::number(++m_count) + ".strata.json"); }
    QString runDir(const QString& name) { return m_dir.filePath(name + "-" + QString::number(++m_count)); }

    // Runs a whole job; every task must complete. Returns the chief's `done` event.
    Json runJob(const Json& doc, const QStringList& names, const QString& dir)
    {
        Job job(file(doc), names, dir);
        const bool ended = job.allExited(kStuck);
        for (int i = 0; i < job.size(); ++i) {
            const Json* done = job.task(i).last("done");
            if (!ended || !done || (*done)["status"] != "completed") {
                std::fprintf(stderr, "%s\n", qPrintable("What each task was doing:\n" + job.report()));
                QTest::qFail(qPrintable(job.task(i).name + " did not complete (each task's report above)"), __FILE__, __LINE__);
                return {};
            }
        }
        return *job.task(0).last("done");
    }

private slots:
    void defaultMlpReachesOneDevicesAccuracy()
    {
        if (!haveFashionMnist())
            QSKIP("Fashion-MNIST is not installed (Debian's dataset-fashion-mnist)");
        const Json base = Json::parse(readText(QStringLiteral(STRATA_SOURCE_DIR "/resources/experiments/fashion-mnist-mlp.strata.json")));
        // The default MLP as it is: 5 epochs (async noise at one epoch is near the tolerance).
        const Json one = base;
        const EngineResult reference = runEngine({"train", file(one), "--run-dir", runDir("one"), "--quiet"});
        QCOMPARE(reference.exitCode, 0);
        const Json oneDone = *reference.first("done");

        Json ps = one;
        ps["strategy"] = {{"type", "ParameterServer"}, {"partitioner", {{"type", "FixedShards"}, {"num_shards", 2}}}};
        ps["cluster"] = psCluster(2, 2);
        const QString dir = runDir("ps");
        Job job(file(ps), psNames(2, 2), dir);
        QVERIFY_JOB(job.allExited(kStuck), job, QString("the job did not end:"));
        const Json* done = job.task(0).last("done");
        QVERIFY2(done, qPrintable(job.task(0).err()));
        QCOMPARE((*done)["status"], Json("completed"));
        // The same examples: every step exactly once, each one worker's batch of 32.
        QCOMPARE((*done)["steps"], oneDone["steps"]);
        const double accuracy = (*done)["test"]["accuracy"].get<double>();
        const double reached = oneDone["test"]["accuracy"].get<double>();
        qInfo("test accuracy: ParameterServer %.4f, OneDevice %.4f", accuracy, reached);
        QVERIFY(std::abs(accuracy - reached) <= 0.01);

        // Every shard lives where TensorFlow's round-robin puts it, and each ps applied every step.
        const Json* placement = job.task(0).last("placement");
        QVERIFY(placement);
        const auto& kernel = (*placement)["variables"][0];
        QCOMPARE(kernel["name"], Json("dense/kernel"));
        QCOMPARE(kernel["shards"].size(), size_t{2});
        QCOMPARE(kernel["shards"][1]["ps"], Json("ps:1"));
        QCOMPARE(kernel["shards"][1]["rows"], Json::parse("[392, 784]"));
        // Every step ran at least once: exactly once unless a worker was given up for lost (on
        // a loaded machine its heartbeats can be late), whose step then ran again elsewhere.
        QString lost;
        for (const Json& e : job.task(0).events)
            if (e["type"] == "membership" && e["state"] == "lost")
                lost += QString::fromStdString(e.dump()) + "\n";
        const int64_t steps = (*done)["steps"].get<int64_t>();
        auto ranEveryStep = [&](int64_t count) { return lost.isEmpty() ? count == steps : count >= steps; };
        int64_t workerSteps = 0;
        for (const QString& name : {QString("ps:0"), QString("ps:1"), QString("worker:0"), QString("worker:1")}) {
            Task& t = job.task(indexOf(job, name));
            const Json* d = t.last("done");
            QVERIFY2(d && (*d)["status"] == "completed", qPrintable(name + ": " + t.err()));
            if (name.startsWith("ps"))
                QVERIFY2(ranEveryStep((*d)["updates"].get<int64_t>()),
                         qPrintable(QString("%1 applied %2 updates for %3 steps; lost: %4")
                                        .arg(name).arg((*d)["updates"].get<int64_t>()).arg(steps).arg(lost)));
            else
                workerSteps += (*d)["steps"].get<int64_t>();
            if (name.startsWith("worker")) {
                const Json* step = t.last("step");
                QVERIFY(step && step->contains("staleness_mean") && step->contains("staleness_max"));
            }
        }
        QVERIFY2(ranEveryStep(workerSteps), qPrintable(QString("%1 worker steps; lost: %2").arg(workerSteps).arg(lost)));
        QVERIFY(job.task(indexOf(job, "ps:0")).last("ps"));
    }

    void lockstepWithOneWorkerEqualsOneDevice()
    {
        Json one = smallExperiment();
        one["training"]["epochs"] = 2;
        const QString oneDir = runDir("one");
        QCOMPARE(runEngine({"train", file(one), "--run-dir", oneDir, "--quiet"}).exitCode, 0);

        Json ps = one;
        ps["strategy"] = {{"type", "ParameterServer"},
                          {"max_staleness", 0},
                          {"partitioner", {{"type", "MinSize"}, {"min_shard_bytes", 64}, {"max_shards", 3}}}};
        ps["cluster"] = psCluster(1, 2);
        const QString psDir = runDir("ps");
        const Json done = runJob(ps, psNames(1, 2), psDir);
        QCOMPARE(done["steps"].get<int64_t>(), int64_t{2 * 38});
        const auto a = weightsIn(psDir + "/model.weights"), b = weightsIn(oneDir + "/model.weights");
        QCOMPARE(a.size(), b.size());
        QVERIFY2(relativeError(a, b) <= 1e-5, qPrintable(QString::number(relativeError(a, b))));
    }

    void stalenessBoundKeepsWorkersInStep()
    {
        Json doc = longRun(2, 1);
        doc["training"]["epochs"] = 4;
        doc["strategy"]["max_staleness"] = 0;
        const QString dir = runDir("lockstep");
        Job job(file(doc), psNames(2, 1), dir);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const Json* done = job.task(0).last("done");
        QVERIFY_JOB(done && (*done)["status"] == "completed", job, "");
        const int64_t a = (*job.task(indexOf(job, "worker:0")).last("done"))["steps"].get<int64_t>();
        const int64_t b = (*job.task(indexOf(job, "worker:1")).last("done"))["steps"].get<int64_t>();
        QCOMPARE(a + b, (*done)["steps"].get<int64_t>());
        // Rounds of one step per worker once both train (the first may start alone): in the
        // coordinator's full-resolution records, neither gets ahead of the other.
        std::vector<std::string> order;
        for (const Json& r : parseLines(QByteArray::fromStdString(readText(dir + "/steps-chief-0.jsonl"))))
            order.push_back(r["worker"].get<std::string>());
        const auto second = std::find_if(order.begin(), order.end(), [&](const std::string& w) { return w != order.front(); });
        QVERIFY(second != order.end());
        int64_t lead = 0, widest = 0;
        for (auto it = second; it != order.end(); ++it) {
            lead += *it == order.front() ? 1 : -1;
            widest = std::max(widest, std::abs(lead));
        }
        QVERIFY2(widest <= 2, qPrintable(QString("one worker got %1 steps ahead").arg(widest)));
    }

    void killedWorkerIsReplacedAndReadmitted()
    {
        const Json doc = longRun(2, 1);
        const QString dir = runDir("worker-killed");
        Job job(file(doc), psNames(2, 1), dir);
        const int victim = indexOf(job, "worker:1");
        QVERIFY_JOB(job.waitFor([&] { return job.task(victim).lastStep() >= 200 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(victim).lastStep() >= 200, job, "");
        job.kill(victim);
        // The coordinator names it lost within its timeout (2 s) and goes on.
        const auto killedAt = Clock::now();
        auto membership = [&](const char* state) {
            return lastOf(job.task(0), "membership", [&](const Json& e) { return e["member"] == "worker:1" && e["state"] == state; });
        };
        QVERIFY_JOB(job.waitFor([&] { return membership("lost") != nullptr || !job.task(0).running(); }, kStuck), job, "");
        const double lostAfter = secondsSince(killedAt);
        qInfo("worker:1 named lost after %.1f s", lostAfter);
        QVERIFY_JOB(membership("lost") && lostAfter < 10, job, QString("lost after %1 s").arg(lostAfter));
        const int64_t stepAtLoss = job.task(0).lastStep();
        QVERIFY_JOB(job.waitFor([&] { return job.task(0).lastStep() > stepAtLoss + 50 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(0).lastStep() > stepAtLoss + 50, job, "");
        // Relaunched, it is re-admitted and given steps within 10 s.
        const auto restartedAt = Clock::now();
        const int again = job.start("worker:1");
        QVERIFY_JOB(job.waitFor([&] { return job.task(again).lastStep() > 0 || !job.task(0).running(); }, kStuck), job, "");
        const double steppedAfter = secondsSince(restartedAt);
        QVERIFY_JOB(job.task(again).lastStep() > 0 && steppedAfter < 10, job, QString("first step %1 s after the relaunch").arg(steppedAfter));
        QVERIFY(membership("joined"));
        qInfo("worker:1 re-admitted and trained a step %.1f s after its relaunch", steppedAfter);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const Json* done = job.task(0).last("done");
        QVERIFY_JOB(done, job, "");
        QCOMPARE((*done)["status"], Json("completed"));
        QCOMPARE((*done)["steps"].get<int64_t>(), int64_t{40 * 125}); // exact, whatever was lost
    }

    void killedPsStopsTheJobAndTheRerunResumes()
    {
        const Json doc = longRun(2, 2);
        const QString dir = runDir("ps-killed"), experiment = file(doc);
        int64_t checkpointed = 0;
        {
            Job job(experiment, psNames(2, 2), dir);
            // Two checkpoints (400 steps), or the chief ended before them: no matter how slow
            // the machine, the wait ends on an event; its deadline is for a job that is stuck.
            QVERIFY_JOB(job.waitFor([&] { return job.task(0).count("checkpoint") >= 2 || !job.task(0).running(); }, kStuck), job, "");
            QVERIFY_JOB(job.task(0).count("checkpoint") >= 2, job, "");
            job.kill(indexOf(job, "ps:1"));
            checkpointed = (*job.task(0).last("checkpoint"))["step"].get<int64_t>();
            const auto killedAt = Clock::now();
            QVERIFY_JOB(job.allExited(kStuck), job, "");
            const double seconds = secondsSince(killedAt);
            const Json* error = job.task(0).last("error");
            QVERIFY_JOB(error, job, "");
            QVERIFY2((*error)["message"].get<std::string>().find("ps:1") != std::string::npos, qPrintable(QString::fromStdString((*error)["message"].dump())));
            qInfo("ps:1 killed: the job stopped naming it after %.1f s", seconds);
            QVERIFY_JOB(seconds < 10, job, QString("stopped %1 s after the kill").arg(seconds));
        }
        Job rerun(experiment, psNames(2, 2), dir);
        QVERIFY_JOB(rerun.allExited(kStuck), rerun, "");
        const Json* start = rerun.task(0).last("start");
        const Json* done = rerun.task(0).last("done");
        QVERIFY_JOB(start && done, rerun, "");
        // From the last checkpoint (every shard and slot), or a later one written meanwhile.
        QVERIFY(checkpointed >= 200);
        QVERIFY2((*start)["resumed_from_step"].is_number() && (*start)["resumed_from_step"].get<int64_t>() >= checkpointed,
                 qPrintable(QString::fromStdString(start->dump())));
        QCOMPARE((*done)["status"], Json("completed"));
        QCOMPARE((*done)["steps"].get<int64_t>(), int64_t{40 * 125});
    }

    void killedCoordinatorStopsTheJobAndTheRerunResumes()
    {
        Json doc = longRun(1, 1);
        const QString dir = runDir("chief-killed"), experiment = file(doc);
        {
            Job job(experiment, psNames(1, 1), dir);
            QVERIFY_JOB(job.waitFor([&] { return job.task(0).count("checkpoint") >= 1 || !job.task(0).running(); }, kStuck), job, "");
            QVERIFY_JOB(job.task(0).count("checkpoint") >= 1, job, "");
            job.kill(0);
            const auto killedAt = Clock::now();
            QVERIFY_JOB(job.allExited(kStuck), job, "");
            const double seconds = secondsSince(killedAt);
            qInfo("chief:0 killed: the other tasks stopped after %.1f s", seconds);
            QVERIFY_JOB(seconds < 20, job, QString("stopped %1 s after the kill").arg(seconds));
            for (int i = 1; i < job.size(); ++i) {
                const Json* error = job.task(i).last("error");
                QVERIFY2(error && (*error)["message"].get<std::string>().find("chief:0") != std::string::npos,
                         qPrintable(job.task(i).name + ": " + job.task(i).err()));
            }
        }
        const Json done = runJob(doc, psNames(1, 1), dir);
        QCOMPARE(done["steps"].get<int64_t>(), int64_t{40 * 125});
    }

    void coordinatorRelaunchedAloneTakesTheJobBack()
    {
        const Json doc = longRun(2, 1);
        const QString dir = runDir("chief-relaunched");
        Job job(file(doc), psNames(2, 1), dir);
        QVERIFY_JOB(job.waitFor([&] { return job.task(0).count("checkpoint") >= 2 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(0).count("checkpoint") >= 2, job, "");
        const int64_t checkpointed = (*job.task(0).last("checkpoint"))["step"].get<int64_t>();
        job.kill(0);
        // Only the coordinator again: the workers and the ps still run, and it re-admits the
        // workers from their heartbeats, restores its checkpoint on the ps and finishes.
        const int chief = job.start("chief:0");
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const Json* start = job.task(chief).last("start");
        const Json* done = job.task(chief).last("done");
        QVERIFY_JOB(start && done, job, "");
        QVERIFY((*start)["resumed_from_step"].get<int64_t>() >= checkpointed);
        QCOMPARE((*done)["status"], Json("completed"));
        QCOMPARE((*done)["steps"].get<int64_t>(), int64_t{40 * 125});
        for (const char* worker : {"worker:0", "worker:1"}) // both running workers joined it
            QVERIFY(lastOf(job.task(chief), "membership", [&](const Json& e) {
                return e["member"] == worker && e["state"] == "joined";
            }));
        for (const QString& name : {QString("worker:0"), QString("worker:1"), QString("ps:0")}) {
            const Json* d = job.task(indexOf(job, name)).last("done");
            QVERIFY2(d && (*d)["status"] == "completed", qPrintable(name + ": " + job.task(indexOf(job, name)).err()));
        }
    }

    void peersWithoutTheKeysAreRefusedAndCounted()
    {
        Json doc = longRun(1, 1);
        doc["training"]["epochs"] = 8;
        const int psPort = doc["cluster"]["tasks"][2]["port"].get<int>();
        const QString dir = runDir("intruders");
        Job job(file(doc), psNames(1, 1), dir);
        QVERIFY_JOB(job.waitFor([&] { return job.task(0).lastStep() >= 50 || !job.task(0).running(); }, kStuck), job, "");
        QVERIFY_JOB(job.task(0).lastStep() >= 50, job, "");
        const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(psPort);
        zmq::context_t context;
        // A ZeroMQ peer with CURVE keys that are not the job's.
        char pub[41], sec[41], serverPub[41], serverSec[41];
        zmq_curve_keypair(pub, sec);
        zmq_curve_keypair(serverPub, serverSec);
        zmq::socket_t wrongKeys(context, zmq::socket_type::dealer);
        wrongKeys.set(zmq::sockopt::curve_serverkey, serverPub);
        wrongKeys.set(zmq::sockopt::curve_publickey, pub);
        wrongKeys.set(zmq::sockopt::curve_secretkey, sec);
        wrongKeys.set(zmq::sockopt::linger, 0);
        wrongKeys.connect(endpoint);
        wrongKeys.send(zmq::str_buffer(R"({"op": "pull", "id": 1})"), zmq::send_flags::dontwait);
        // A ZeroMQ peer without encryption.
        zmq::socket_t plain(context, zmq::socket_type::dealer);
        plain.set(zmq::sockopt::linger, 0);
        plain.connect(endpoint);
        plain.send(zmq::str_buffer(R"({"op": "shutdown"})"), zmq::send_flags::dontwait);
        // Garbage on a raw TCP connection.
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(psPort));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
        const char garbage[] = "GET / HTTP/1.1\r\nHost: ps\r\n\r\n\xff\x00\x13garbage";
        QVERIFY(::write(fd, garbage, sizeof garbage) > 0);

        // Nothing answers them.
        zmq::pollitem_t items[] = {{wrongKeys.handle(), 0, ZMQ_POLLIN, 0}, {plain.handle(), 0, ZMQ_POLLIN, 0}};
        QCOMPARE(zmq::poll(items, 2, std::chrono::milliseconds(1500)), 0);
        ::close(fd);

        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const Json* done = job.task(0).last("done");
        QVERIFY_JOB(done, job, "");
        QCOMPARE((*done)["status"], Json("completed"));
        QCOMPARE((*done)["steps"].get<int64_t>(), int64_t{8 * 125});
        const Json* psDone = job.task(indexOf(job, "ps:0")).last("done");
        QVERIFY(psDone);
        qInfo("ps:0 refused %lld peers", static_cast<long long>((*psDone)["refused"].get<int64_t>()));
        QVERIFY((*psDone)["refused"].get<int64_t>() >= 3);
        QVERIFY(lastOf(job.task(indexOf(job, "ps:0")), "log", [](const Json& e) {
            return e["message"].get<std::string>().find("refused") != std::string::npos;
        }));
    }

    // The coordinator waits for every worker before the first step; one that never comes is
    // named once the start-up allowance is over, and the job trains without it.
    void workerMissingAtTheStartIsNamedAndTheJobGoesOn()
    {
        Json doc = smallExperiment();
        doc["strategy"] = {{"type", "ParameterServer"}, {"startup_timeout_seconds", 1}};
        doc["cluster"] = psCluster(2, 1);
        Job job(file(doc), {"chief:0", "ps:0", "worker:0"}, runDir("missing-worker"));
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const Json* done = job.task(0).last("done");
        QVERIFY_JOB(done && (*done)["status"] == "completed", job, "");
        QVERIFY_JOB(lastOf(job.task(0), "log", [](const Json& e) {
            return e["message"].get<std::string>().find("worker:1 did not join within 1.0 s") != std::string::npos;
        }), job, "");
    }

    void tfConfigWithPsTasksTrains()
    {
        Json doc = smallExperiment();
        doc["strategy"] = {{"type", "ParameterServer"}};
        const int port = freePorts(4);
        const Json cluster{{"chief", {"127.0.0.1:" + std::to_string(port)}},
                           {"worker", {"127.0.0.1:" + std::to_string(port + 1)}},
                           {"ps", {"127.0.0.1:" + std::to_string(port + 2), "127.0.0.1:" + std::to_string(port + 3)}}};
        const QString experiment = file(doc), dir = runDir("tf-config");
        std::vector<std::unique_ptr<Job>> jobs;
        for (const auto& [type, index] : {std::pair{"chief", 0}, {"ps", 0}, {"ps", 1}, {"worker", 0}}) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            const Json config{{"cluster", cluster}, {"task", {{"type", type}, {"index", index}}}};
            env.insert("TF_CONFIG", QString::fromStdString(config.dump()));
            jobs.push_back(std::make_unique<Job>(experiment, QStringList{QString("%1:%2").arg(type).arg(index)}, dir,
                                                 "job-token", env, false));
        }
        for (auto& j : jobs)
            QVERIFY_JOB(j->allExited(kStuck), *j, "");
        const Json* done = jobs[0]->task(0).last("done");
        QVERIFY_JOB(done, *jobs[0], "");
        QCOMPARE((*done)["status"], Json("completed"));
        QCOMPARE((*jobs[3]->task(0).last("done"))["steps"], (*done)["steps"]);
    }
};

QTEST_GUILESS_MAIN(TestParameterServer)
#include "tst_parameter_server.moc"
