#include "ps/ps_client.h"

#include "ps/messages.h"
#include "strata/core/seconds_text.h"
#include "ps/shard_store.h"
#include "strata/distribute/communicator.h"

#include <cstring>

namespace strata::ps {

namespace {

using Clock = std::chrono::steady_clock;

// `n` requests of `op` with no payload.
std::vector<Message> requestsOf(size_t n, const char* op)
{
    std::vector<Message> out(n);
    for (auto& m : out)
        m.header = {{"op", op}};
    return out;
}

std::string seconds(std::chrono::milliseconds ms) { return secondsText(static_cast<double>(ms.count()) / 1000.0); }

} // namespace

PsClient::PsClient(zmq::context_t& context, const CurveKeys& keys, const JobLayout& layout) : m_layout(layout)
{
    for (size_t i = 0; i < layout.ps.size(); ++i) {
        m_clients.push_back(std::make_unique<Client>(context, keys, JobLayout::endpoint(layout.ps[i]),
                                                     layout.ps[i].name(), std::string(), layout.maxFrameBytes()));
        m_shards.push_back(layout.shardsOf(static_cast<int>(i)));
        m_pulledVersions.emplace_back(m_shards.back().size(), 0);
        m_pulledGeneration.push_back(0);
    }
    m_unanswered.assign(layout.ps.size(), std::nullopt);
}

std::vector<Message> PsClient::exchange(std::vector<Message> requests, std::chrono::milliseconds timeout)
{
    const int64_t id = m_nextId++;
    for (size_t i = 0; i < requests.size(); ++i) {
        requests[i].header["id"] = id;
        m_clients[i]->send(std::move(requests[i]));
    }
    std::vector<Message> replies(requests.size());
    std::vector<bool> done(requests.size(), false);
    const auto deadline = Clock::now() + timeout;
    for (size_t i = 0; i < requests.size(); ++i) {
        while (!done[i]) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            auto reply = left.count() > 0 ? m_clients[i]->receive(left) : std::nullopt;
            if (!reply)
                throw distribute::CollectiveError(m_layout.ps[i].name() + " (" + m_layout.ps[i].address() +
                                            ") did not answer within " + seconds(timeout));
            m_unanswered[i].reset();
            const PsReply answer = readPsReply(reply->header);
            if (answer.id != id)
                continue; // an answer to an earlier ping
            if (answer.error)
                throw distribute::CollectiveError(m_layout.ps[i].name() + ": " + *answer.error);
            replies[i] = std::move(*reply);
            done[i] = true;
        }
    }
    return replies;
}

void PsClient::pull(const std::vector<nn::Parameter*>& params)
{
    auto replies = exchange(requestsOf(m_clients.size(), "pull"), m_layout.timeout);
    for (size_t i = 0; i < replies.size(); ++i) {
        const auto& shards = m_shards[i];
        if (replies[i].payload.size() != shards.size())
            throw distribute::CollectiveError(m_layout.ps[i].name() + " holds " + std::to_string(replies[i].payload.size()) +
                                        " shards, this task expects " + std::to_string(shards.size()));
        for (size_t s = 0; s < shards.size(); ++s) {
            const distribute::VariableShard& shard = m_layout.shard(shards[s]);
            copyFrame(replies[i].payload[s], rowsOf(params[shards[s].variable]->value, shard.rowBegin, shard.rowEnd),
                     shard.name);
        }
        m_pulledVersions[i] = readIntegers(replies[i].header, "versions", shards.size());
        m_pulledGeneration[i] = readInteger(replies[i].header, "generation", 0);
    }
}

PushResult PsClient::push(const std::vector<nn::Parameter*>& params)
{
    std::vector<Message> requests;
    for (size_t i = 0; i < m_clients.size(); ++i) {
        Message m{{{"op", "push"}, {"versions", m_pulledVersions[i]}, {"generation", m_pulledGeneration[i]}}, {}};
        for (const ShardRef& r : m_shards[i]) {
            const distribute::VariableShard& shard = m_layout.shard(r);
            // The gradients stay as they are until every ps has acknowledged the push.
            m.addView(rowsOf(params[r.variable]->grad, shard.rowBegin, shard.rowEnd));
        }
        requests.push_back(std::move(m));
    }
    const auto replies = exchange(std::move(requests), m_layout.timeout);
    PushResult result;
    int64_t shards = 0, total = 0;
    for (size_t i = 0; i < replies.size(); ++i)
        for (int64_t s : readIntegers(replies[i].header, "staleness", m_shards[i].size())) {
            total += s;
            ++shards;
            result.stalenessMax = std::max(result.stalenessMax, s);
        }
    result.stalenessMean = shards > 0 ? static_cast<double>(total) / static_cast<double>(shards) : 0.0;
    return result;
}

void PsClient::init(const std::vector<nn::Parameter*>& params, nn::Optimizer& optimizer)
{
    optimizer.prepare(params);
    auto slots = optimizer.stateTensors();
    const size_t k = params.empty() ? 0 : slots.size() / params.size();
    std::vector<Message> requests;
    for (size_t i = 0; i < m_clients.size(); ++i) {
        Json names = Json::array();
        Message m{{{"op", "init"}, {"iterations", optimizer.iterations()}, {"slots", k}}, {}};
        for (const ShardRef& r : m_shards[i]) {
            const distribute::VariableShard& shard = m_layout.shard(r);
            names.push_back(shard.name);
            m.add(rowsOf(params[r.variable]->value, shard.rowBegin, shard.rowEnd));
            for (size_t j = 0; j < k; ++j)
                m.add(rowsOf(*slots[r.variable * k + j].second, shard.rowBegin, shard.rowEnd));
        }
        m.header["shards"] = names;
        m.header["versions"] = std::vector<int64_t>(m_shards[i].size(), optimizer.iterations());
        requests.push_back(std::move(m));
    }
    exchange(std::move(requests), m_layout.timeout);
}

void PsClient::fetchState(const std::vector<nn::Parameter*>& params, nn::Optimizer& optimizer)
{
    optimizer.prepare(params);
    auto slots = optimizer.stateTensors();
    const size_t k = params.empty() ? 0 : slots.size() / params.size();
    const auto replies = exchange(requestsOf(m_clients.size(), "state"), m_layout.timeout);
    for (size_t i = 0; i < replies.size(); ++i) {
        const auto& shards = m_shards[i];
        if (replies[i].payload.size() != shards.size() * (1 + k))
            throw distribute::CollectiveError(m_layout.ps[i].name() + " sent a state of another optimizer");
        size_t frame = 0;
        for (const ShardRef& r : shards) {
            const distribute::VariableShard& shard = m_layout.shard(r);
            copyFrame(replies[i].payload[frame++], rowsOf(params[r.variable]->value, shard.rowBegin, shard.rowEnd),
                     shard.name);
            for (size_t j = 0; j < k; ++j)
                copyFrame(replies[i].payload[frame++],
                         rowsOf(*slots[r.variable * k + j].second, shard.rowBegin, shard.rowEnd), shard.name);
        }
        // Every ps applies every push, so their iteration counts agree; the first one's is kept.
        if (i == 0)
            optimizer.setIterations(readInteger(replies[i].header, "iterations"));
    }
}

void PsClient::waitForServers(std::chrono::milliseconds timeout)
{
    exchange(requestsOf(m_clients.size(), "ping"), timeout);
}

void PsClient::shutdown(const std::string& status)
{
    for (auto& c : m_clients)
        c->send(Message{{{"op", "shutdown"}, {"status", status}}, {}});
}

void PsClient::ping()
{
    for (size_t i = 0; i < m_clients.size(); ++i) {
        m_clients[i]->send(Message{{{"op", "ping"}}, {}});
        if (!m_unanswered[i])
            m_unanswered[i] = Clock::now();
    }
}

void PsClient::receivePending()
{
    for (size_t i = 0; i < m_clients.size(); ++i)
        while (m_clients[i]->receive(std::chrono::milliseconds(0)))
            m_unanswered[i].reset();
}

std::vector<zmq::socket_t*> PsClient::sockets()
{
    std::vector<zmq::socket_t*> out;
    for (auto& c : m_clients)
        out.push_back(&c->socket());
    return out;
}

int64_t PsClient::bytesIn() const
{
    int64_t n = 0;
    for (const auto& c : m_clients)
        n += c->bytesIn();
    return n;
}

int64_t PsClient::bytesOut() const
{
    int64_t n = 0;
    for (const auto& c : m_clients)
        n += c->bytesOut();
    return n;
}

} // namespace strata::ps
