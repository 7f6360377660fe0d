#include "ps/job_layout.h"

#include "ps/transport.h"
#include "strata/core/error.h"

namespace strata::ps {

JobLayout JobLayout::of(const schema::Experiment& e, const nn::Sequential& model)
{
    if (e.strategy.effectiveType() != "ParameterServer")
        throw ConfigError("strategy.type", "is " + e.strategy.type + ", not ParameterServer");
    JobLayout job;
    for (const schema::TaskAddress& a : schema::taskAddresses(e.cluster)) {
        if (a.type == "chief")
            job.chief = a;
        else if (a.type == "worker")
            job.workers.push_back(a);
        else if (a.type == "ps")
            job.ps.push_back(a);
    }
    if (job.chief.type.empty() || job.workers.empty() || job.ps.empty())
        throw ConfigError("cluster.tasks", "ParameterServer needs one chief, at least one worker and at least one ps");
    std::vector<distribute::VariableDescription> variables;
    for (const nn::Parameter* p : model.parameters())
        variables.push_back({p->name, p->value.shape()});
    job.variables = distribute::placeVariables(variables, e.strategy.partitioner, static_cast<int>(job.ps.size()));
    job.timeout = std::chrono::milliseconds(static_cast<int64_t>(e.strategy.timeoutSeconds * 1000));
    job.startupTimeout = std::chrono::milliseconds(static_cast<int64_t>(e.strategy.startupTimeoutSeconds * 1000));
    job.maxStaleness = e.strategy.maxStaleness;
    return job;
}

std::vector<ShardRef> JobLayout::shardsOf(int psIndex) const
{
    std::vector<ShardRef> out;
    for (size_t v = 0; v < variables.size(); ++v)
        for (size_t s = 0; s < variables[v].shards.size(); ++s)
            if (variables[v].shards[s].ps == psIndex)
                out.push_back({v, s});
    return out;
}

int64_t JobLayout::maxFrameBytes() const
{
    int64_t most = kMaxHeaderFrameBytes;
    for (const auto& v : variables)
        for (const auto& s : v.shards)
            most = std::max(most, s.bytes());
    return most;
}

std::string workerIdentity(const std::string& task, int64_t pid) { return task + "@" + std::to_string(pid); }

std::string JobLayout::endpoint(const schema::TaskAddress& task) { return endpointOf(task.host, task.port); }

} // namespace strata::ps
