// TF_CONFIG, as strata-engine reads it from its environment: JSON text to the task it names
// and to a cluster. A cluster read from a TF_CONFIG must be one the experiment accepts (it
// replaces the document's), and the TF_CONFIG each of its tasks would be given must read
// back to the same cluster.

#include "fuzz_support.h"

#include "strata/schema/cluster_spec.h"

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    schema::ClusterSpec cluster;
    const bool accepted = fuzz::answers([&] {
        const schema::Json config = schema::parseTfConfig(std::string(fuzz::text(data, size)));
        (void)schema::tfConfigTask(config);
        cluster = schema::clusterFromTfConfig(config);
    });
    if (!accepted)
        return 0;
    const schema::Json section = schema::clusterToJson(cluster);
    schema::Problems problems;
    const schema::ClusterSpec read = schema::readCluster(&section, "cluster", problems);
    if (!problems.empty())
        fuzz::fail("a cluster read from TF_CONFIG is refused as an experiment's: " + problems.list().front().str() +
                   "\n" + section.dump());
    if (!(read == cluster))
        fuzz::fail("a cluster read from TF_CONFIG changed as an experiment's:\n" + section.dump());
    const std::vector<schema::TaskAddress> tasks = schema::taskAddresses(cluster);
    std::vector<std::string> before;
    for (const auto& t : tasks)
        before.push_back(t.name() + "@" + t.address());
    // A few tasks (each check reads the whole cluster again).
    for (size_t i = 0; i < tasks.size() && i < 4; ++i) {
        const schema::TaskAddress& task = tasks[i];
        const schema::Json config = schema::tfConfig(cluster, task.type, task.index);
        if (schema::tfConfigTask(config) != task.name())
            fuzz::fail("the TF_CONFIG of " + task.name() + " names another task: " + config.dump());
        // Node names and SSH settings are not in a TF_CONFIG: compare the addresses.
        std::vector<std::string> after;
        for (const auto& t : schema::taskAddresses(schema::clusterFromTfConfig(config)))
            after.push_back(t.name() + "@" + t.address());
        if (before != after)
            fuzz::fail("the TF_CONFIG of " + task.name() + " reads back to other addresses: " + config.dump());
    }
    return 0;
}
