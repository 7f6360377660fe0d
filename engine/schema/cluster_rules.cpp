#include "cluster_rules.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace strata::schema {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool isLoopback(const std::string& host)
{
    const std::string h = lower(host);
    return h == "localhost" || h == "127.0.0.1" || h == "::1";
}

std::string hostProblem(const std::string& host)
{
    if (host.empty())
        return "must not be empty: it is the name or address the other tasks reach the node at";
    if (std::any_of(host.begin(), host.end(), [](unsigned char c) {
            return std::isspace(c) || c == '/' || c == '@' || c == '[' || c == ']';
        }))
        return quoted(host) + " is not a host name or address";
    // One colon is "name:port"; IPv6 addresses have several.
    if (std::count(host.begin(), host.end(), ':') == 1)
        return quoted(host) + " includes a port: write the host alone (each task has its own port)";
    return {};
}

std::string plural(int64_t n, const std::string& what)
{
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

void checkTaskCounts(const std::vector<TaskGroup>& groups, const std::string& path, Problems& problems)
{
    std::map<std::string, int64_t> totals;
    for (const auto& g : groups)
        totals[g.type] += g.count;
    std::map<std::string, int64_t> running;
    for (const auto& g : groups) {
        const int64_t before = running[g.type];
        running[g.type] += g.count;
        if ((g.type == "chief" || g.type == "evaluator") && before <= 1 && running[g.type] > 1)
            problems.add(g.path, "there can be at most one " + g.type + " (as in TensorFlow), the cluster has " +
                                     std::to_string(totals[g.type]));
    }
    if (totals["chief"] + totals["worker"] == 0)
        problems.add(path, "needs at least one chief or worker task: they are the processes that train");
}

void checkAddressesUnique(const std::vector<AddressUse>& uses, Problems& problems)
{
    std::map<std::string, const AddressUse*> seen; // by lower-case address: host names ignore case
    for (const auto& use : uses) {
        const auto [it, inserted] = seen.emplace(lower(use.address), &use);
        if (!inserted)
            problems.add(use.path, it->second->task + " and " + use.task + " both use " + use.address);
    }
}

std::string addressOf(const std::string& host, int64_t port)
{
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return h + ":" + std::to_string(port);
}

const NodeSpec* findNode(const ClusterSpec& cluster, const std::string& name)
{
    const auto it = std::find_if(cluster.nodes.begin(), cluster.nodes.end(),
                                 [&](const NodeSpec& n) { return n.name == name; });
    return it == cluster.nodes.end() ? nullptr : &*it;
}

bool sameHost(const std::string& a, const std::string& b)
{
    const std::string x = lower(a), y = lower(b);
    return x == y || (isLoopback(x) && isLoopback(y));
}

} // namespace strata::schema
