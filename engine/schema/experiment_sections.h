#pragma once
// The readers of the experiment's sections, each in its own file (read_strategy.cpp,
// read_data.cpp, read_training.cpp); parseExperiment (experiment.cpp) puts them together.
// Problems go to `problems` with their paths; what could be read is returned either way.

#include "strata/schema/experiment.h"

namespace strata::schema {

StrategySpec readStrategy(const Json* json, const std::string& path, Problems& problems,
                          std::vector<ConfigProblem>& notes);
// The strategy's needs against the cluster's tasks (a chief for ParameterServer, one process
// for the single-process strategies...).
void checkClusterForStrategy(const StrategySpec& s, const ClusterSpec& c, Problems& problems,
                             std::vector<ConfigProblem>& notes);
DataSpec readData(const Json* json, const std::string& path, Problems& problems);
TrainingSpec readTraining(const Json* json, const std::string& path, Problems& problems);

} // namespace strata::schema
