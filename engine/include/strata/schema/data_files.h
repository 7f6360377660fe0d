#pragma once
// Where an experiment's data lies: the files (and, for text, directories) its data source
// names, found as the loaders find them (strata/data/loaders.h), without reading them. In the
// document layer so that the app can check, before a launch, that the data is on this machine
// (app/experiment/validation.h), as a node checks it has the data before a job starts there.

#include "strata/schema/experiment.h"

#include <string>
#include <vector>

namespace strata::schema {

// In the order the loaders read them: an MNIST-family directory's train images, train labels,
// test images, test labels; idx's train images and labels, then the test ones when given;
// CIFAR-10's five training batches, then its test batch; text's train, then test when given;
// none for synthetic data. DataError names the first one missing (with where the data comes
// from when Strata knows), as loading would; ConfigError an idx source without its files.
std::vector<std::string> dataFiles(const Experiment& experiment);

} // namespace strata::schema
