#include "app/plan/probe_result.h"

#include "app/plan/plan_calibration.h"
#include "app/plan/scaling_model.h"

#include <set>
#include <stdexcept>

namespace strata::app::plan {

namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;

Spread spreadOf(const Json& j)
{
    Spread s;
    if (!j.is_object())
        return s;
    s.median = j.value("median", 0.0);
    s.mean = j.value("mean", 0.0);
    s.cv = j.value("cv", 0.0);
    s.robustCv = j.value("robust_cv", 0.0);
    s.samples = j.value("samples", 0);
    return s;
}

OJson spreadJson(const Spread& s)
{
    return {{"median", s.median}, {"mean", s.mean}, {"cv", s.cv}, {"robust_cv", s.robustCv}, {"samples", s.samples}};
}

QString text(const Json& j, const char* key) { return QString::fromStdString(j.value(key, std::string())); }

bool isLocalHost(const QString& host, const QString& probed)
{
    return host.isEmpty() || host == QLatin1String("localhost") || host.startsWith(QLatin1String("127.")) ||
           host == QLatin1String("::1") || host == probed;
}

} // namespace

ProbeResult probeFromEvents(const QStringList& lines)
{
    ProbeResult r;
    bool compute = false, collective = false, summary = false;
    for (const QString& line : lines) {
        const Json e = Json::parse(line.toStdString(), nullptr, false);
        if (!e.is_object())
            continue;
        r.events << line;
        const std::string type = e.value("type", std::string());
        if (type == "error")
            throw std::runtime_error("the probe failed: " + e.value("message", std::string("(no message)")));
        if (type == "hello") {
            r.host = text(e, "host");
            for (const auto& d : e.value("devices", Json::array()))
                r.gpus += d.value("kind", std::string()) == "gpu" ? 1 : 0;
        } else if (type == "probe_compute") {
            compute = true;
            ComputeProbe& c = r.compute;
            c.batch = e.value("batch", int64_t{0});
            c.threads = e.value("threads", 0);
            c.prefetch = e.value("prefetch", int64_t{2});
            for (const auto& p : e.value("points", Json::array()))
                c.points.push_back({p.value("threads", 1), p.value("copies", 1), spreadOf(p.value("step_s", Json()))});
            c.forwardSeconds = e.value("forward_s", 0.0);
            c.backwardSeconds = e.value("backward_s", 0.0);
            c.optimizerSeconds = e.value("optimizer_s", 0.0);
            c.input = spreadOf(e.value("input_s", Json()));
            c.gradientReadySeconds = e.value("gradient_ready_s", std::vector<double>{});
            c.variableBytes = e.value("variable_bytes", std::vector<int64_t>{});
        } else if (type == "probe_collective") {
            const bool crowded = e.value("crowded", false);
            collective = collective || !crowded;
            if (crowded)
                r.crowdedCollective.emplace();
            CollectiveProbe& c = crowded ? *r.crowdedCollective : r.collective;
            c.ranks = e.value("ranks", 2);
            c.transport = text(e, "transport");
            c.algorithm = text(e, "algorithm");
            c.halvingDoublingFromRanks = e.value("halving_doubling_from_ranks", 4);
            c.halvingDoublingUpToBytes = e.value("halving_doubling_up_to_bytes", int64_t{4} << 20);
            for (const auto& p : e.value("points", Json::array()))
                c.points.push_back({p.value("bytes", int64_t{0}), spreadOf(p.value("seconds", Json())), p.value("cpu_s", 0.0)});
            c.latencySeconds = e.value("latency_s", 0.0);
            c.bytesPerSecond = e.value("bytes_per_s", 0.0);
            c.cpuPerSecond = e.value("cpu_per_s", 0.0);
            c.fitError = e.value("fit_error", 0.0);
            if (const Json rehearsal = e.value("rehearsal", Json()); rehearsal.is_object()) {
                c.rehearsal = spreadOf(rehearsal.value("step_s", Json()));
                c.rehearsalThreads = rehearsal.value("threads", 1);
            }
        } else if (type == "probe_ps") {
            PsProbe p;
            p.variableBytes = e.value("variable_bytes", int64_t{0});
            p.roundTrip = spreadOf(e.value("round_trip_s", Json()));
            p.smallBytes = e.value("small_bytes", int64_t{0});
            p.smallRoundTrip = spreadOf(e.value("small_round_trip_s", Json()));
            p.latencySeconds = e.value("latency_s", 0.0);
            p.bytesPerSecond = e.value("bytes_per_s", 0.0);
            p.workerCpuSeconds = e.value("worker_cpu_s", 0.0);
            p.serverCpuSeconds = e.value("server_cpu_s", 0.0);
            p.busiestShareByPsTasks = e.value("busiest_share_by_ps", std::vector<double>{});
            r.ps = p;
        } else if (type == "probe_summary") {
            summary = true;
            r.cpu = text(e, "cpu");
            r.cores = e.value("cores", 1);
            r.parameters = e.value("parameters", int64_t{0});
            r.gradientBytes = e.value("gradient_bytes", int64_t{0});
            r.probeSeconds = e.value("seconds", 0.0);
            r.otherBusyCores = e.value("other_busy_cores", 0.0);
        }
    }
    if (!compute || !collective || !summary)
        throw std::runtime_error(std::string("the probe's output lacks its ") +
                                 (!compute ? "probe_compute" : !collective ? "probe_collective" : "probe_summary") + " event");
    return r;
}

PlanRequest requestFor(const nlohmann::json& experiment, const ProbeResult& probe)
{
    if (!experiment.is_object() || !experiment.contains("model"))
        throw std::runtime_error("not an experiment (no model)");
    PlanRequest r;
    r.experiment = text(experiment, "name");
    const Json strategy = experiment.value("strategy", Json::object());
    r.current = strategyNamed(text(strategy, "type")).value_or(Strategy::OneDevice);
    const Json training = experiment.value("training", Json::object());
    r.threadsPerWorker = training.value("threads", 0);
    r.batchPerReplica = training.value("batch_size", int64_t{32});
    r.bucketBytes = strategy.contains("bucket_bytes") && strategy["bucket_bytes"].is_number_integer()
                        ? strategy["bucket_bytes"].get<int64_t>()
                        : int64_t{32} << 20; // the engine's default (schema/defaults.h)
    r.coresPerHost = std::max(1, probe.cores);
    r.devicesPerHost = std::max(1, probe.gpus);

    QStringList hosts;
    int workers = 0, ps = 0;
    if (experiment.contains("cluster") && experiment["cluster"].is_object()) {
        const Json& cluster = experiment["cluster"];
        std::map<std::string, std::string> hostOf;
        for (const auto& n : cluster.value("nodes", Json::array()))
            hostOf[n.value("name", std::string())] = n.value("host", std::string());
        for (const auto& t : cluster.value("tasks", Json::array())) {
            const std::string type = t.value("type", std::string());
            const int count = t.value("count", 1);
            if (type == "chief" || type == "worker")
                workers += type == "worker" || r.current != Strategy::ParameterServer ? count : 0;
            else if (type == "ps")
                ps += count;
            else
                continue;
            hosts << QString::fromStdString(hostOf[t.value("node", std::string())]);
        }
    }
    if (hosts.isEmpty())
        hosts << QStringLiteral("localhost");
    if (workers == 0) {
        const char* key = r.current == Strategy::CentralStorage ? "compute_devices" : "devices";
        workers = r.current == Strategy::Mirrored || r.current == Strategy::CentralStorage
                      ? std::max<int>(1, static_cast<int>(strategy.value(key, Json::array()).size()))
                      : 1;
    }
    r.workersAtHand = workers;
    r.psTasks = std::max(1, ps);
    hosts.removeDuplicates();
    r.hostsAtHand = static_cast<int>(hosts.size());
    r.hostSet = hostSetKey(hosts);
    for (const QString& h : hosts)
        r.probedLocally = r.probedLocally || !isLocalHost(h, probe.host);
    if (probe.ps && static_cast<int>(probe.ps->busiestShareByPsTasks.size()) >= r.psTasks)
        r.busiestPsShare = probe.ps->busiestShareByPsTasks[static_cast<size_t>(r.psTasks - 1)];
    else
        r.busiestPsShare = 1.0 / r.psTasks;
    r.workerCounts = defaultWorkerCounts(r.workersAtHand);
    return r;
}

nlohmann::ordered_json planToJson(const ScalingPlan& plan)
{
    const ProbeResult& p = plan.probe;
    OJson compute = {{"batch", p.compute.batch},
                     {"points", OJson::array()},
                     {"forward_s", p.compute.forwardSeconds},
                     {"backward_s", p.compute.backwardSeconds},
                     {"optimizer_s", p.compute.optimizerSeconds},
                     {"input_s", spreadJson(p.compute.input)}};
    for (const ComputePoint& c : p.compute.points)
        compute["points"].push_back({{"threads", c.threads}, {"copies", c.copies}, {"step_s", spreadJson(c.step)}});
    OJson collective = {{"ranks", p.collective.ranks},
                        {"transport", p.collective.transport.toStdString()},
                        {"latency_s", p.collective.latencySeconds},
                        {"bytes_per_s", p.collective.bytesPerSecond},
                        {"cpu_per_s", p.collective.cpuPerSecond},
                        {"fit_error", p.collective.fitError},
                        {"points", OJson::array()}};
    if (p.collective.rehearsal.samples > 0)
        collective["rehearsal"] = {{"threads", p.collective.rehearsalThreads},
                                   {"step_s", spreadJson(p.collective.rehearsal)}};
    for (const CollectivePoint& c : p.collective.points)
        collective["points"].push_back({{"bytes", c.bytes}, {"seconds", spreadJson(c.seconds)}, {"cpu_s", c.cpuSeconds}});
    if (p.crowdedCollective)
        collective["crowded"] = {{"ranks", p.crowdedCollective->ranks},
                                 {"latency_s", p.crowdedCollective->latencySeconds},
                                 {"bytes_per_s", p.crowdedCollective->bytesPerSecond},
                                 {"cpu_per_s", p.crowdedCollective->cpuPerSecond},
                                 {"fit_error", p.crowdedCollective->fitError}};
    OJson probe = {{"host", p.host.toStdString()},     {"cpu", p.cpu.toStdString()},
                   {"cores", p.cores},                  {"parameters", p.parameters},
                   {"gradient_bytes", p.gradientBytes}, {"seconds", p.probeSeconds},
                   {"other_busy_cores", p.otherBusyCores},
                   {"compute", compute},                {"collective", collective}};
    if (p.ps)
        probe["ps"] = {{"variable_bytes", p.ps->variableBytes},
                       {"round_trip_s", spreadJson(p.ps->roundTrip)},
                       {"latency_s", p.ps->latencySeconds},
                       {"bytes_per_s", p.ps->bytesPerSecond},
                       {"worker_cpu_s", p.ps->workerCpuSeconds},
                       {"server_cpu_s", p.ps->serverCpuSeconds}};
    OJson predictions = OJson::array();
    for (const Prediction& x : plan.predictions) {
        const ModelTerms& t = x.terms;
        predictions.push_back({{"strategy", strategyName(x.strategy).toStdString()},
                               {"workers", x.workers},
                               {"hosts", x.hosts},
                               {"ps_tasks", x.psTasks},
                               {"global_batch", x.globalBatch},
                               {"step_s", x.stepSeconds},
                               {"samples_per_s", x.samplesPerSecond},
                               {"speedup", x.speedup},
                               {"efficiency", x.efficiency},
                               {"cores_shared", x.coresShared},
                               {"extrapolated", x.extrapolated},
                               {"calibration", x.calibration},
                               {"terms",
                                {{"compute_s", t.compute},
                                 {"stretch", t.stretch},
                                 {"input_s", t.input},
                                 {"communication_s", t.communication},
                                 {"overlapped_s", t.overlapped},
                                 {"exposed_s", t.exposed},
                                 {"ps_service_s", t.psService},
                                 {"cores_bound_s", t.coresBound},
                                 {"overhead_s", t.overhead},
                                 {"processes_per_host", t.processesPerHost},
                                 {"threads_per_worker", t.threadsPerWorker},
                                 {"limit", t.limit.toStdString()},
                                 {"formula", t.formula.toStdString()}}}});
    }
    OJson reasons = OJson::array();
    for (const QString& s : plan.recommendation.reasons)
        reasons.push_back(s.toStdString());
    OJson warnings = OJson::array();
    static const char* kinds[] = {"speedup_below_one", "shared_cores", "noisy_inputs", "probed_locally", "extrapolated"};
    for (const Warning& w : plan.warnings)
        warnings.push_back({{"kind", kinds[static_cast<int>(w.kind)]}, {"text", w.text.toStdString()}});
    return {{"experiment", plan.request.experiment.toStdString()},
            {"current_strategy", strategyName(plan.request.current).toStdString()},
            {"hosts_at_hand", plan.request.hostsAtHand},
            {"workers_at_hand", plan.request.workersAtHand},
            {"probe", probe},
            {"predictions", predictions},
            {"recommendation",
             {{"strategy", strategyName(plan.recommendation.strategy).toStdString()},
              {"workers", plan.recommendation.workers},
              {"reasons", reasons}}},
            {"warnings", warnings},
            {"noise",
             {{"too_noisy", plan.noise.tooNoisy},
              {"threshold", plan.noise.threshold},
              {"worst_cv", plan.noise.worstCv},
              {"worst_share", plan.noise.worstShare},
              {"worst", plan.noise.worst.toStdString()},
              {"other_busy_cores", plan.probe.otherBusyCores},
              {"text", plan.noise.text.toStdString()}}}};
}

} // namespace strata::app::plan
