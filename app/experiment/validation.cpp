#include "app/experiment/validation.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/cluster_editing.h"
#include "app/experiment/experiment_document.h"
#include "app/experiment/field_labels.h"

#include "strata/core/device.h"
#include "strata/core/error.h"
#include "strata/schema/data_files.h"
#include "strata/schema/experiment.h"

#include <QDir>

#include <algorithm>

namespace strata::app {

using Json = nlohmann::ordered_json;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

void addProblems(const ConfigError& e, QList<Problem>& into)
{
    for (const auto& p : e.problems())
        into.push_back({q(p.path), q(p.message)});
}

// The model section, read on its own so the layer table fills even when other sections
// have problems.
void describeModel(const Json& document, const QString& baseDir, Validation& v)
{
    if (!document.is_object() || !document.contains("model"))
        return;
    Json model = document["model"];
    if (model.is_string()) {
        try {
            model = schema::readJsonFile(QDir(baseDir).filePath(q(model.get<std::string>())).toStdString());
        } catch (const Error&) {
            return; // reported by the full validation
        }
    }
    schema::Problems problems;
    const schema::ModelSpec m = schema::parseModel(model, "model", problems);
    v.inputShape = q(m.inputShape.strWithBatch());
    if (!problems.empty() || m.layers.empty())
        return;
    const schema::ModelShapes shapes = schema::inferShapes(m);
    v.totalParams = shapes.totalParams;
    v.nonTrainableParams = shapes.nonTrainableParams;
    v.failedLayer = shapes.failedLayer;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        LayerRow row{q(m.layers[i].name), q(m.layers[i].type), {}, 0, {}};
        if (i < shapes.layers.size()) {
            row.outputShape = q(shapes.layers[i].output.strWithBatch());
            row.params = shapes.layers[i].paramCount;
        } else if (static_cast<int>(i) == shapes.failedLayer) {
            row.error = q(shapes.error);
        }
        v.layers.push_back(row);
    }
}

// The GPUs the strategy sees: the logical ones it declares on the host's first GPU, else the
// host's (as the engine's HostDevices).
int gpusOf(const schema::StrategySpec& s, const HostCapabilities& host)
{
    return s.logicalGpuDevices > 0 && host.gpus > 0 ? static_cast<int>(s.logicalGpuDevices) : host.gpus;
}

// The devices a strategy names must exist on the host that runs it (the engine says the same).
void checkDevices(const schema::StrategySpec& s, const HostCapabilities& host, Validation& v)
{
    const int logical = s.logicalCpuDevices > 0 ? static_cast<int>(s.logicalCpuDevices) : host.logicalCpus;
    const int gpus = gpusOf(s, host);
    const auto check = [&](const std::string& name, const QString& path) {
        try {
            const Device d = Device::parse(name);
            if (d.isCpu() && d.index >= logical)
                v.problems.push_back({path, q(d.str()) + " does not exist on this host: it offers " +
                                                QString::number(logical) +
                                                " logical CPU devices (strategy.logical_cpu_devices creates more)"});
            if (!d.isCpu() && d.index >= gpus)
                v.problems.push_back({path, q(d.str()) + " does not exist on this host: " +
                                                (gpus == 0 ? QStringLiteral("no GPU was found")
                                                           : QStringLiteral("it offers %1 GPU%2 (gpu:0..gpu:%3)")
                                                                 .arg(gpus)
                                                                 .arg(gpus == 1 ? "" : "s")
                                                                 .arg(gpus - 1))});
        } catch (const ConfigError&) {
            // reported by the document's validation
        }
    };
    const std::string type = s.effectiveType();
    if (type == "OneDevice")
        check(s.device, "strategy.device");
    const auto& list = type == "CentralStorage" ? s.computeDevices : s.devices;
    const QString field = type == "CentralStorage" ? "strategy.compute_devices" : "strategy.devices";
    // Here only when every MultiWorkerMirrored worker runs on this machine (see validate()).
    if (type == "Mirrored" || type == "CentralStorage" || type == "MultiWorkerMirrored")
        for (size_t i = 0; i < list.size(); ++i)
            check(list[i], field + "[" + QString::number(i) + "]");
    if (type == "CentralStorage")
        check(s.parameterDevice, "strategy.parameter_device");
}

// Whether every chief and worker task runs on this machine (auth "none"): only then are the
// strategy's devices and the cores checked here (a remote node's are checked on the node
// before launch, node_check.h).
bool trainsHereOnly(const schema::ClusterSpec& cluster)
{
    for (const schema::TaskAssignment& a : cluster.tasks) {
        if (a.type != "chief" && a.type != "worker")
            continue;
        const auto node = std::find_if(cluster.nodes.begin(), cluster.nodes.end(),
                                       [&](const schema::NodeSpec& n) { return n.name == a.node; });
        if (node != cluster.nodes.end() && node->auth != "none")
            return false;
    }
    return true;
}

// The tasks that compute the gradients: under MultiWorkerMirrored the chief and the workers,
// under ParameterServer the workers (its chief coordinates, its ps tasks apply the updates).
int trainingTasksOf(const schema::Experiment& e)
{
    const int64_t workers = schema::taskCount(e.cluster, "worker");
    return static_cast<int>(e.strategy.effectiveType() == "ParameterServer" ? workers
                                                                            : workers + schema::taskCount(e.cluster, "chief"));
}

// Each MultiWorkerMirrored worker's local replicas (the engine's default: one, on cpu:0); a
// ParameterServer worker is one replica.
int localReplicasOf(const schema::StrategySpec& s)
{
    return s.type == "ParameterServer" || s.devices.empty() ? 1 : static_cast<int>(s.devices.size());
}

// The job's workers all run here and share its cores; the engine divides them among the
// tasks and replicas, but cannot give each fewer than one thread, and explicit
// training.threads are taken as they are. More compute threads than cores: said, not refused
// (steps are slower, results the same).
void noteSharedCores(const schema::Experiment& e, const HostCapabilities& host, Validation& v)
{
    const int tasks = trainingTasksOf(e);
    const int replicas = localReplicasOf(e.strategy);
    const int cores = std::max(host.logicalCpus, 1);
    const int perReplica = e.training.threads > 0 ? static_cast<int>(e.training.threads)
                                                  : std::max(1, cores / (replicas * tasks));
    const int threads = tasks * replicas * perReplica;
    if (threads <= cores)
        return;
    v.notes.push_back({e.training.threads > 0 ? QStringLiteral("training.threads") : QStringLiteral("cluster.tasks"),
                       QString("%1 compute threads (%2 training tasks x %3 replicas x %4 GEMM threads) on the %5 "
                               "cores of this machine: they compete for the cores, so steps are slower (the "
                               "results are the same)")
                           .arg(threads)
                           .arg(tasks)
                           .arg(replicas)
                           .arg(perReplica)
                           .arg(cores)});
}

int replicasOf(const schema::Experiment& e, const HostCapabilities& host)
{
    const schema::StrategySpec& s = e.strategy;
    const std::string type = s.effectiveType();
    if (isMultiProcess(type))
        return localReplicasOf(s) * trainingTasksOf(e);
    const int localDevices = host.gpus > 0 ? gpusOf(s, host)
                                           : (s.logicalCpuDevices > 0 ? static_cast<int>(s.logicalCpuDevices)
                                                                      : host.logicalCpus);
    if (type == "Mirrored")
        return s.devices.empty() ? localDevices : static_cast<int>(s.devices.size());
    if (type == "CentralStorage")
        return s.computeDevices.empty() ? localDevices : static_cast<int>(s.computeDevices.size());
    return 1;
}

// A missing data file is the problem of the field naming it (the directory holding it, or the
// file itself).
void checkFiles(const schema::Experiment& e, Validation& v)
{
    try {
        schema::dataFiles(e);
    } catch (const DataError& error) {
        const schema::DataSourceSpec& s = e.data.source;
        const std::pair<const char*, const std::string*> fields[] = {
            {"dir", &s.dir},     {"train_images", &s.trainImages}, {"train_labels", &s.trainLabels},
            {"test_images", &s.testImages}, {"test_labels", &s.testLabels}, {"train", &s.train}, {"test", &s.test}};
        QString path = QStringLiteral("data.source");
        size_t matched = 0;
        for (const auto& [name, value] : fields) {
            const std::string resolved = schema::resolvePath(e, *value);
            if (!resolved.empty() && resolved.size() > matched && error.file().starts_with(resolved)) {
                path = QStringLiteral("data.source.") + name;
                matched = resolved.size();
            }
        }
        v.problems.push_back({path, q(error.what())});
    } catch (const ConfigError&) {
        // an idx source without its files: the document's validation says so
    }
}

// The engine reads the data where the job trains: here, the files must be here. Checked also
// while other sections have problems (on the default experiment with this data section).
void checkData(const Json& document, const QString& baseDir, Validation& v)
{
    Json probe = ExperimentDocument::defaultExperiment();
    probe["data"] = document.value("data", Json());
    try {
        const schema::Experiment e = schema::parseExperiment(probe, baseDir.toStdString());
        checkFiles(e, v);
    } catch (const Error&) {
        // the data section's own problems: the document's validation names them
    }
}

} // namespace

Validation validate(const Json& document, const QString& baseDir, const HostCapabilities& host)
{
    Validation v;
    describeModel(document, baseDir, v);
    try {
        const schema::Experiment e = schema::parseExperiment(document, baseDir.toStdString());
        for (const auto& n : e.notes)
            v.notes.push_back({q(n.path), q(n.message)});
        v.strategy = q(e.strategy.effectiveType());
        v.replicas = replicasOf(e, host);
        v.perReplicaBatch = e.training.batchSize;
        // A ParameterServer step is one worker's batch, whatever the number of workers.
        v.globalBatch = e.training.batchSize * (v.strategy == "ParameterServer" ? 1 : v.replicas);
        const bool multiWorker = isMultiProcess(e.strategy.effectiveType());
        if (multiWorker)
            v.workers = trainingTasksOf(e);
        if (host.known && trainsHereOnly(e.cluster)) {
            checkDevices(e.strategy, host, v);
            if (multiWorker)
                noteSharedCores(e, host, v);
        }
    } catch (const ConfigError& e) {
        addProblems(e, v.problems);
    } catch (const Error& e) {
        v.problems.push_back({{}, q(e.what())});
    }
    if (document.is_object() && trainsHereOnly(readableCluster(document)))
        checkData(document, baseDir, v);
    for (QList<Problem>* list : {&v.problems, &v.notes})
        for (Problem& p : *list)
            p.field = fieldLabel(p.path, document);
    return v;
}

} // namespace strata::app
