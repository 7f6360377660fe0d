// TF_CONFIG, as strata-engine reads it from its environment: JSON text to the task it names
// and to a cluster. A cluster read from a TF_CONFIG must be one the experiment accepts (it
// replaces the document's), and the TF_CONFIG each of its tasks would be given must read
// back to the same cluster.

#include "fuzz_support.h"

#include "strata/spec/cluster_spec.h"

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    spec::ClusterSpec cluster;
    const bool accepted = fuzz::answers([&] {
        const spec::Json config = spec::parseTfConfig(std::string(fuzz::text(data, size)));
        (void)spec::tfConfigTask(config);
        cluster = spec::clusterFromTfConfig(config);
    });
    if (!accepted)
        return 0;
    const spec::Json section = spec::clusterToJson(cluster);
    spec::Problems problems;
    const spec::ClusterSpec read = spec::readCluster(&section, "cluster", problems);
    if (!problems.empty())
        fuzz::fail("a cluster read from TF_CONFIG is refused as an experiment's: " + problems.list().front().str() +
                   "\n" + section.dump());
    if (!(read == cluster))
        fuzz::fail("a cluster read from TF_CONFIG changed as an experiment's:\n" + section.dump());
    const std::vector<spec::TaskAddress> tasks = spec::taskAddresses(cluster);
    std::vector<std::string> before;
    for (const auto& t : tasks)
        before.push_back(t.name() + "@" + t.address());
    // A few tasks (each check reads the whole cluster again).
    for (size_t i = 0; i < tasks.size() && i < 4; ++i) {
        const spec::TaskAddress& task = tasks[i];
        const spec::Json config = spec::tfConfig(cluster, task.type, task.index);
        if (spec::tfConfigTask(config) != task.name())
            fuzz::fail("the TF_CONFIG of " + task.name() + " names another task: " + config.dump());
        // Node names and SSH settings are not in a TF_CONFIG: compare the addresses.
        std::vector<std::string> after;
        for (const auto& t : spec::taskAddresses(spec::clusterFromTfConfig(config)))
            after.push_back(t.name() + "@" + t.address());
        if (before != after)
            fuzz::fail("the TF_CONFIG of " + task.name() + " reads back to other addresses: " + config.dump());
    }
    return 0;
}
