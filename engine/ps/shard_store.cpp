#include "ps/shard_store.h"

#include "distribute/replica.h"
#include "ps/messages.h"
#include "strata/distribute/communicator.h"

#include <cstring>

namespace strata::ps {

std::span<float> rowsOf(Tensor& t, int64_t begin, int64_t end)
{
    const int64_t rows = t.rank() == 0 ? 1 : t.dim(0);
    const int64_t rowSize = rows == 0 ? 0 : t.numel() / rows;
    return t.values().subspan(static_cast<size_t>(begin * rowSize), static_cast<size_t>((end - begin) * rowSize));
}

ShardStore::ShardStore(const schema::Experiment& experiment, const JobLayout& layout, int psIndex)
    : m_optimizer(distribute::createScaledOptimizer(experiment, 1))
{
    for (const ShardRef& r : layout.shardsOf(psIndex)) {
        const distribute::VariableShard& s = layout.shard(r);
        m_params.push_back({s.name, Tensor::zeros(s.shape), Tensor::zeros(s.shape), "", 0});
    }
    for (auto& p : m_params)
        m_list.push_back(&p);
    m_versions.assign(m_params.size(), 0);
    m_optimizer->prepare(m_list);
}

int64_t ShardStore::variableBytes() const
{
    int64_t n = 0;
    for (const auto& p : m_params)
        n += p.value.numel() * 4;
    return n;
}

void ShardStore::init(const Message& m)
{
    const auto& names = m.header.value("shards", Json::array());
    std::vector<std::string> mine;
    for (const auto& p : m_params)
        mine.push_back(p.name);
    if (names != Json(mine))
        throw distribute::CollectiveError("the coordinator's shards " + names.dump() + " are not this task's " +
                                    Json(mine).dump() + ": do the tasks run the same experiment?");
    auto slots = m_optimizer->stateTensors();
    const size_t k = m_params.empty() ? 0 : slots.size() / m_params.size();
    if (readInteger(m.header, "slots", 0) != static_cast<int64_t>(k) || m.payload.size() != m_params.size() * (1 + k))
        throw distribute::CollectiveError("the coordinator's optimizer state does not match this task's optimizer (" +
                                    std::string(m_optimizer->name()) + ")");
    size_t frame = 0;
    for (size_t i = 0; i < m_params.size(); ++i) {
        copyFrame(m.payload[frame++], m_params[i].value.values(), m_params[i].name);
        for (size_t j = 0; j < k; ++j)
            copyFrame(m.payload[frame++], slots[i * k + j].second->values(), slots[i * k + j].first);
    }
    m_versions = readIntegers(m.header, "versions", m_params.size());
    m_optimizer->setIterations(readInteger(m.header, "iterations", 0));
    m_initialized = true;
    ++m_generation;
}

Message ShardStore::pull() const
{
    Message reply{{{"versions", m_versions}, {"generation", m_generation}}, {}};
    for (const auto& p : m_params)
        reply.add(p.value.values());
    return reply;
}

Message ShardStore::push(const Message& m)
{
    const auto pulled = readIntegers(m.header, "versions", m_params.size());
    if (m.payload.size() != m_params.size())
        throw distribute::CollectiveError("a push with " + std::to_string(m.payload.size()) + " gradients for " +
                                    std::to_string(m_params.size()) + " shards");
    std::vector<int64_t> staleness(m_params.size());
    // Computed on variables a new coordinator has since replaced (from its checkpoint): not
    // an update of these.
    if (readInteger(m.header, "generation", m_generation) != m_generation)
        return Message{{{"staleness", staleness}, {"versions", m_versions}, {"dropped", true}}, {}};
    for (size_t i = 0; i < m_params.size(); ++i) {
        copyFrame(m.payload[i], m_params[i].grad.values(), m_params[i].name + "'s gradient");
        staleness[i] = m_versions[i] - pulled[i];
        ++m_versions[i];
    }
    m_optimizer->apply(m_list);
    ++m_updates;
    return Message{{{"staleness", staleness}, {"versions", m_versions}}, {}};
}

Message ShardStore::state()
{
    auto slots = m_optimizer->stateTensors();
    const size_t k = m_params.empty() ? 0 : slots.size() / m_params.size();
    Message reply{{{"iterations", m_optimizer->iterations()}, {"versions", m_versions}, {"slots", k}}, {}};
    for (size_t i = 0; i < m_params.size(); ++i) {
        reply.add(m_params[i].value.values());
        for (size_t j = 0; j < k; ++j)
            reply.add(slots[i * k + j].second->values());
    }
    return reply;
}

Served serve(ShardStore& store, const Message& request)
{
    const std::string op = opOf(request.header);
    Served served;
    try {
        if (op == "pull" || op == "push") {
            if (!store.initialized())
                throw distribute::CollectiveError("the coordinator has not sent the variables yet");
            if (op == "pull") {
                served.reply = store.pull();
                served.pulled = true;
            } else {
                served.reply = store.push(request);
            }
        } else {
            // Everything else comes from the coordinator.
            served.fromCoordinator = true;
            if (op == "init")
                store.init(request);
            else if (op == "state")
                served.reply = store.state();
            else if (op == "shutdown")
                served.shutdown = readText(request.header, "status", "completed");
            else if (op != "ping")
                throw distribute::CollectiveError("unknown operation \"" + op + "\"");
        }
    } catch (const distribute::CollectiveError& e) {
        served.reply = Message{{{"error", e.what()}}, {}};
    }
    served.reply.header["id"] = idOf(request.header);
    return served;
}

} // namespace strata::ps
