// Resume safety with the real engine: a run directory resumes only with the experiment that
// wrote its checkpoints (more epochs are a normal resume); a different one is refused, naming
// each field, and leaves every file as it was; --fresh sets the earlier state aside and
// trains from the beginning; --weights-only takes the weights alone (refused, naming the
// layer, when they do not fit); a checkpoint from before fingerprints is resumed with a
// warning; `start` passes the choice on; a MultiWorkerMirrored chief and the ParameterServer
// coordinator decide for their job.

#include "dist_test_helpers.h"
#include "engine_job.h"
#include "engine_process.h"

#include "strata/rundir/checkpoint.h"

#include <QtTest>

#include <cmath>

using namespace testing;

namespace {

QStringList train(const QString& experiment, const QString& runDir, const QStringList& more = {})
{
    return QStringList{"train", experiment, "--events", "stdout", "--run-dir", runDir} + more;
}

QString message(const EngineResult& r)
{
    const Json* error = r.first("error");
    return error ? QString::fromStdString((*error)["message"].get<std::string>()) : r.errText();
}

bool logged(const EngineResult& r, const QString& level, const QString& text)
{
    for (const auto& e : r.events)
        if (e["type"] == "log" && e["level"] == level.toStdString() &&
            QString::fromStdString(e["message"].get<std::string>()).contains(text))
            return true;
    return false;
}

// The bytes of every file under `dir`, by relative path.
QMap<QString, QByteArray> snapshot(const QString& dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            files[QDir(dir).relativeFilePath(path)] = f.readAll();
    }
    return files;
}

double maxDifference(const std::vector<float>& a, const std::vector<float>& b)
{
    double worst = a.size() == b.size() ? 0 : INFINITY;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
    return worst;
}

// The model's weights in a checkpoint file (its optimizer slots left out).
std::vector<float> modelWeights(const QString& file)
{
    const auto c = strata::run::readCheckpoint(file.toStdString());
    std::vector<float> all;
    for (const auto& [name, t] : c.tensors)
        if (!name.starts_with("optimizer/"))
            all.insert(all.end(), t.data(), t.data() + t.numel());
    return all;
}

} // namespace

class TestResumeSafety : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;

    // A run directory holding a finished run of smallExperiment() (checkpoints every 10 steps).
    QString trainedRunDir(const Json& doc = smallExperiment())
    {
        const QString runDir = m_dir.filePath(QString("run-%1").arg(++m_runs));
        const EngineResult r = runEngine(train(writeExperiment(m_dir, doc, QString("first-%1.json").arg(m_runs)), runDir));
        if (r.exitCode != 0)
            qWarning("%s", qPrintable(r.errText()));
        return runDir;
    }

private slots:
    void moreEpochsResume()
    {
        const QString runDir = trainedRunDir();
        Json longer = smallExperiment();
        longer["training"]["epochs"] = 5;
        longer["training"]["metrics"] = Json::array(); // reported differently, trained the same
        const EngineResult r = runEngine(train(writeExperiment(m_dir, longer, "longer.json"), runDir));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE((*r.first("start"))["resumed_from_step"].get<int>(), 3 * 38);
        QCOMPARE(r.events.back()["steps"].get<int>(), 5 * 38);
    }

    void differentExperimentIsRefused()
    {
        const QString runDir = trainedRunDir();
        const auto before = snapshot(runDir);
        Json other = smallExperiment();
        other["training"]["optimizer"]["learning_rate"] = 0.05;
        other["training"]["batch_size"] = 32;
        other["seed"] = 4;
        const EngineResult r = runEngine(train(writeExperiment(m_dir, other, "other.json"), runDir));
        QCOMPARE(r.exitCode, 2);
        const Json* error = r.first("error");
        QVERIFY2(error, qPrintable(r.errText()));
        QCOMPARE((*error)["kind"].get<std::string>(), std::string("resume"));
        const QString text = message(r);
        for (const char* line : {"seed: 3 (checkpoint) vs 4 (experiment)",
                                 "training.batch_size: 16 (checkpoint) vs 32 (experiment)",
                                 "training.optimizer.learning_rate: 0.01 (checkpoint) vs 0.05 (experiment)",
                                 "--fresh", "--weights-only", "experiment.strata.json"})
            QVERIFY2(text.contains(line), qPrintable(text));
        QCOMPARE((*error)["differences"].size(), size_t(3));
        QCOMPARE((*error)["differences"][1]["field"].get<std::string>(), std::string("training.batch_size"));
        QCOMPARE((*error)["differences"][1]["checkpoint"].get<std::string>(), std::string("16"));
        QCOMPARE((*error)["choices"], Json::parse(R"(["fresh", "weights_only"])"));
        // Nothing of the run directory changed but its logs: the checkpoints, the final weights
        // and the copy of the experiment that wrote them.
        const auto after = snapshot(runDir);
        for (auto it = before.begin(); it != before.end(); ++it)
            if (!it.key().startsWith("events-") && !it.key().startsWith("steps-"))
                QVERIFY2(after.value(it.key()) == it.value(), qPrintable(it.key()));
    }

    void freshSetsTheEarlierRunAside()
    {
        const QString runDir = trainedRunDir();
        const auto before = snapshot(runDir);
        Json other = smallExperiment();
        other["model"]["layers"][0]["units"] = 24;
        const QString file = writeExperiment(m_dir, other, "fresh.json");
        const EngineResult r = runEngine(train(file, runDir, {"--fresh"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QVERIFY((*r.first("start"))["resumed_from_step"].is_null());
        QVERIFY(logged(r, "info", "starting fresh (--fresh)"));
        // The earlier checkpoints, weights and experiment, byte for byte, in set-aside-*/.
        const QStringList aside = QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs);
        QCOMPARE(aside.size(), 1);
        for (auto it = before.begin(); it != before.end(); ++it)
            if (it.key().startsWith("checkpoints/") || it.key() == "model.weights" || it.key() == "experiment.strata.json")
                QVERIFY2(snapshot(runDir + "/" + aside[0]).value(it.key()) == it.value(), qPrintable(it.key()));
        // And the new run is exactly a fresh one.
        const QString alone = m_dir.filePath("fresh-alone");
        QCOMPARE(runEngine(train(file, alone)).exitCode, 0);
        QCOMPARE(modelWeights(runDir + "/model.weights"), modelWeights(alone + "/model.weights"));
        // A rerun of the new experiment resumes it.
        const EngineResult again = runEngine(train(file, runDir));
        QCOMPARE(again.exitCode, 0);
        QCOMPARE((*again.first("start"))["resumed_from_step"].get<int>(), 3 * 38);
    }

    void weightsOnlyTakesTheWeights()
    {
        const QString runDir = trainedRunDir();
        const std::vector<float> trained = modelWeights(runDir + "/model.weights");
        // Another optimizer whose steps are too small to move a weight: the run ends with
        // the checkpoint's weights, from step 0.
        Json other = smallExperiment();
        other["training"]["optimizer"] = {{"type", "sgd"}, {"learning_rate", 1e-12}};
        other["training"]["epochs"] = 1;
        const EngineResult r = runEngine(train(writeExperiment(m_dir, other, "weights.json"), runDir, {"--weights-only"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QVERIFY((*r.first("start"))["resumed_from_step"].is_null());
        QCOMPARE(r.events.back()["steps"].get<int>(), 38);
        QVERIFY(logged(r, "info", "loaded the weights of the checkpoint at step 114 (--weights-only)"));
        QVERIFY2(maxDifference(modelWeights(runDir + "/model.weights"), trained) < 1e-6,
                 qPrintable(QString::number(maxDifference(modelWeights(runDir + "/model.weights"), trained))));
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 1);
    }

    void weightsOnlyRefusesAnotherArchitecture()
    {
        const QString runDir = trainedRunDir();
        const auto before = snapshot(runDir);
        Json other = smallExperiment();
        other["model"]["layers"][0]["units"] = 24;
        const QString file = writeExperiment(m_dir, other, "wider.json");
        // Resuming it is refused without offering the weights...
        const EngineResult resumed = runEngine(train(file, runDir));
        QCOMPARE(resumed.exitCode, 2);
        QCOMPARE((*resumed.first("error"))["choices"], Json::parse(R"(["fresh"])"));
        QVERIFY2(message(resumed).contains("model.layers[0].units: 16 (checkpoint) vs 24 (experiment)"),
                 qPrintable(message(resumed)));
        // ...and asking for them names the layers that do not fit.
        const EngineResult r = runEngine(train(file, runDir, {"--weights-only"}));
        QCOMPARE(r.exitCode, 2);
        QCOMPARE((*r.first("error"))["kind"].get<std::string>(), std::string("resume"));
        const QString text = message(r);
        QVERIFY2(text.contains("layer dense (model.layers[0], Dense): dense/kernel has shape (8, 16) in the "
                               "checkpoint, the model needs (8, 24)"), qPrintable(text));
        QVERIFY2(text.contains("layer dense_1 (model.layers[2], Dense)"), qPrintable(text));
        QCOMPARE((*r.first("error"))["differences"][0]["field"].get<std::string>(), std::string("model.layers[0].units"));
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 0);
        QVERIFY(snapshot(runDir).value("checkpoints/ckpt-0000000114.strata") == before.value("checkpoints/ckpt-0000000114.strata"));
    }

    void checkpointWithoutFingerprintResumesWithAWarning()
    {
        // As the previous Strata wrote them: no fingerprint in the header.
        const QString runDir = trainedRunDir();
        strata::run::CheckpointDirectory checkpoints((runDir + "/checkpoints").toStdString());
        for (const std::string& path : checkpoints.list()) {
            strata::run::Checkpoint c = strata::run::readCheckpoint(path);
            QVERIFY(c.extra.contains("fingerprint"));
            c.extra.erase("fingerprint");
            strata::run::writeCheckpoint(path, c);
        }
        Json longer = smallExperiment();
        longer["training"]["epochs"] = 4;
        const EngineResult r = runEngine(train(writeExperiment(m_dir, longer, "old.json"), runDir));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE((*r.first("start"))["resumed_from_step"].get<int>(), 114);
        QVERIFY(logged(r, "warning", "recorded no fingerprint"));
    }

    void bothChoicesAreAUsageError()
    {
        const EngineResult r = runEngine(train(writeExperiment(m_dir, smallExperiment(), "both.json"),
                                               m_dir.filePath("both"), {"--fresh", "--weights-only"}));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(message(r).contains("exclude each other"), qPrintable(message(r)));
    }

    void startPassesTheChoiceOn()
    {
        // The app's path: `start` (a supervised task) with --fresh.
        const QString runDir = trainedRunDir();
        Json other = smallExperiment();
        other["seed"] = 5;
        const std::string text = other.dump();
        for (const QStringList& extra : {QStringList{}, QStringList{"--fresh"}}) {
            QProcess p;
            p.start(STRATA_ENGINE_PATH, QStringList{"start", "--run-dir", runDir, "--task", "worker:0"} + extra);
            // Standard input stays open: `start` follows the task until its exit line.
            p.write("\n" + QByteArray::number(qsizetype(text.size())) + "\n" + QByteArray::fromStdString(text));
            QVERIFY(p.waitForFinished(120000));
            const std::vector<Json> events = parseLines(p.readAllStandardOutput());
            const auto has = [&](const char* type, const char* key, const char* value) {
                return std::any_of(events.begin(), events.end(), [&](const Json& e) {
                    return e["type"] == type && e.value(key, "") == value;
                });
            };
            if (extra.isEmpty()) {
                QVERIFY2(has("error", "kind", "resume"), qPrintable(p.readAllStandardError()));
            } else {
                QVERIFY2(has("done", "status", "completed"), qPrintable(p.readAllStandardError()));
                QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 1);
            }
        }
    }

    void multiWorkerChiefRefusesForTheJob()
    {
        const int port = freePorts(2);
        Json mw = smallExperiment();
        mw["strategy"] = {{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 5}};
        mw["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                         {"tasks", Json::array({{{"type", "chief"}, {"node", "local"}, {"port", port}},
                                                {{"type", "worker"}, {"node", "local"}, {"port", port + 1}}})}};
        const QString runDir = m_dir.filePath("mw");
        const QStringList names{"chief:0", "worker:0"};
        {
            Job job(writeExperiment(m_dir, mw, "mw.json"), names, runDir);
            QVERIFY_JOB(job.allExited(kStuck), job, "");
            QVERIFY_JOB(job.task(0).last("done"), job, "");
        }
        // Twice the batch per replica: another global batch.
        Json other = mw;
        other["training"]["batch_size"] = 32;
        Job job(writeExperiment(m_dir, other, "mw-other.json"), names, runDir);
        QVERIFY_JOB(job.allExited(kStuck), job, "");
        const Json* refused = job.task(0).last("error");
        QVERIFY_JOB(refused && (*refused)["kind"] == "resume", job, "");
        QCOMPARE((*refused)["differences"][0]["field"].get<std::string>(), std::string("training.batch_size"));
        // The other worker ends too, naming the chief's refusal.
        const Json* lost = job.task(1).last("error");
        QVERIFY_JOB(lost && (*lost)["message"].get<std::string>().find("cannot resume") != std::string::npos, job, "");
    }

    void parameterServerCoordinatorRefusesToo()
    {
        const int port = freePorts(3);
        Json ps = smallExperiment();
        ps["strategy"] = {{"type", "ParameterServer"}, {"timeout_seconds", 5}};
        ps["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                         {"tasks", Json::array({{{"type", "chief"}, {"node", "local"}, {"port", port}},
                                                {{"type", "worker"}, {"node", "local"}, {"port", port + 1}},
                                                {{"type", "ps"}, {"node", "local"}, {"port", port + 2}}})}};
        const QString runDir = m_dir.filePath("ps");
        const QStringList names{"chief:0", "ps:0", "worker:0"};
        {
            Job job(writeExperiment(m_dir, ps, "ps.json"), names, runDir);
            QVERIFY_JOB(job.allExited(kStuck), job, "");
            QVERIFY_JOB(job.task(0).last("done"), job, "");
        }
        Json other = ps;
        other["training"]["optimizer"]["learning_rate"] = 0.02;
        Job job(writeExperiment(m_dir, other, "ps-other.json"), names, runDir);
        // The ps and the worker are told the job ends (they would wait two minutes for a
        // coordinator that said nothing).
        const QString late = job.exitedWithin(20);
        QVERIFY2(late.isEmpty(), qPrintable(late));
        const Json* error = job.task(0).last("error");
        QVERIFY_JOB(error && (*error)["kind"] == "resume", job, "");
        QVERIFY2(QString::fromStdString((*error)["message"].get<std::string>())
                     .contains("training.optimizer.learning_rate: 0.01 (checkpoint) vs 0.02 (experiment)"),
                 qPrintable(QString::fromStdString((*error)["message"].get<std::string>())));
    }
};

QTEST_GUILESS_MAIN(TestResumeSafety)
#include "tst_resume_safety.moc"
