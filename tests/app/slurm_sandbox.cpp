// strata-slurm-sandbox [NODES]: a real Slurm on this machine (slurm_fixture.h, its node names
// resolving), for the screenshot tour of a Slurm job (scripts/screenshots.sh) and for trying
// Strata's Slurm backend by hand. Prints `SLURM_CONF=<path>` once the nodes are idle, then runs
// until its standard input ends, and removes everything. Root only: otherwise it says why and
// exits 1.

#include "slurm_fixture.h"

#include <QCoreApplication>

#include <cstdio>
#include <iostream>
#include <string>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (const QString why = slurmtest::SlurmCluster::skipReason(); !why.isEmpty()) {
        std::fprintf(stderr, "strata-slurm-sandbox: %s\n", qPrintable(why));
        return 1;
    }
    slurmtest::SlurmClusterOptions options;
    options.nodes = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
    slurmtest::SlurmCluster cluster(options);
    if (!cluster.isReady() || !cluster.waitForNodesIdle()) {
        std::fprintf(stderr, "strata-slurm-sandbox: Slurm did not start: %s\n", qPrintable(cluster.error()));
        return 1;
    }
    slurmtest::NodeNames names(cluster);
    std::printf("SLURM_CONF=%s\n", qPrintable(cluster.confPath()));
    std::fflush(stdout);
    for (std::string line; std::getline(std::cin, line);) {
    }
    return 0;
}
