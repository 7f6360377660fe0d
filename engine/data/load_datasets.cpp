// Turns the experiment's data section into datasets, from the files schema::dataFiles() finds.
#include "strata/data/loaders.h"

#include "strata/core/error.h"
#include "strata/schema/data_files.h"

namespace strata::data {

DatasetSplits loadDatasets(const schema::Experiment& experiment)
{
    const auto& source = experiment.data.source;
    DatasetSplits splits;
    if (source.type == "fashion_mnist" || source.type == "mnist" || source.type == "idx") {
        const std::vector<std::string> f = schema::dataFiles(experiment);
        splits.train = std::make_shared<Dataset>(loadIdx(f[0], f[1], source.normalize));
        if (f.size() == 4)
            splits.test = std::make_shared<Dataset>(loadIdx(f[2], f[3], source.normalize));
    } else if (source.type == "cifar10") {
        std::vector<std::string> f = schema::dataFiles(experiment);
        const std::string test = f.back();
        f.pop_back();
        splits.train = std::make_shared<Dataset>(loadCifar10(f, source.normalize));
        splits.test = std::make_shared<Dataset>(loadCifar10({test}, source.normalize));
    } else if (source.type == "text") {
        splits = loadText(schema::resolvePath(experiment, source.train), schema::resolvePath(experiment, source.test),
                          source.vocabSize, source.maxLength);
    } else if (source.type == "synthetic") {
        splits = makeSynthetic(source, experiment.seed);
    } else {
        throw ConfigError("data.source.type", "unknown data source '" + source.type + "'");
    }

    splits.train->truncate(experiment.data.trainLimit);
    if (splits.test)
        splits.test->truncate(experiment.data.testLimit);
    return splits;
}

} // namespace strata::data
