// Turns the experiment's data section into datasets: finds the files each source type
// expects, with messages that say where the data comes from when it is missing.
#include "strata/data/loaders.h"

#include "strata/core/error.h"

#include <filesystem>

namespace strata::data {

namespace {

namespace fs = std::filesystem;

const char* kFashionMnistHint = "; Fashion-MNIST comes from Debian's dataset-fashion-mnist package "
                                "(apt install dataset-fashion-mnist)";
const char* kCifar10Hint = "; download https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz and unpack it "
                           "(it holds cifar-10-batches-bin/)";

bool isFile(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

bool isDirectory(const fs::path& p)
{
    std::error_code ec;
    return fs::is_directory(p, ec);
}

// `name`.gz, or `name` itself when only the uncompressed file is there.
std::string findIdxFile(const fs::path& dir, const std::string& name, const std::string& hint)
{
    const fs::path gz = dir / (name + ".gz");
    if (isFile(gz))
        return gz.string();
    if (isFile(dir / name))
        return (dir / name).string();
    throw DataError(gz.string(), "file not found (nor " + name + " without .gz)" + hint);
}

DatasetSplits loadMnistDirectory(const spec::Experiment& experiment)
{
    const auto& source = experiment.data.source;
    const std::string hint = source.type == "fashion_mnist" ? kFashionMnistHint : "";
    const fs::path dir = spec::resolvePath(experiment, source.dir);
    if (!isDirectory(dir))
        throw DataError(dir.string(), "directory not found" + hint);
    // Looked up in order (not as call arguments) so the first missing file is the one named.
    const std::string trainImages = findIdxFile(dir, "train-images-idx3-ubyte", hint);
    const std::string trainLabels = findIdxFile(dir, "train-labels-idx1-ubyte", hint);
    const std::string testImages = findIdxFile(dir, "t10k-images-idx3-ubyte", hint);
    const std::string testLabels = findIdxFile(dir, "t10k-labels-idx1-ubyte", hint);
    DatasetSplits splits;
    splits.train = std::make_shared<Dataset>(loadIdx(trainImages, trainLabels, source.normalize));
    splits.test = std::make_shared<Dataset>(loadIdx(testImages, testLabels, source.normalize));
    return splits;
}

DatasetSplits loadIdxFiles(const spec::Experiment& experiment)
{
    const auto& source = experiment.data.source;
    const auto path = [&](const std::string& p) { return spec::resolvePath(experiment, p); };
    if (source.trainImages.empty() || source.trainLabels.empty())
        throw ConfigError("data.source", "idx needs train_images and train_labels");
    if (source.testImages.empty() != source.testLabels.empty())
        throw ConfigError("data.source", "test_images and test_labels go together");
    DatasetSplits splits;
    splits.train = std::make_shared<Dataset>(loadIdx(path(source.trainImages), path(source.trainLabels),
                                                     source.normalize));
    if (!source.testImages.empty())
        splits.test = std::make_shared<Dataset>(loadIdx(path(source.testImages), path(source.testLabels),
                                                        source.normalize));
    return splits;
}

DatasetSplits loadCifar10Directory(const spec::Experiment& experiment)
{
    const auto& source = experiment.data.source;
    const fs::path given = spec::resolvePath(experiment, source.dir);
    if (!isDirectory(given))
        throw DataError(given.string(), std::string("directory not found") + kCifar10Hint);
    // Accept the directory the archive unpacks into, or the one above it.
    fs::path dir = given;
    if (!isFile(dir / "data_batch_1.bin") && isFile(dir / "cifar-10-batches-bin" / "data_batch_1.bin"))
        dir = dir / "cifar-10-batches-bin";
    const auto require = [&](const std::string& name) {
        const fs::path file = dir / name;
        if (!isFile(file))
            throw DataError(file.string(), "file not found (nor in " + (given / "cifar-10-batches-bin").string()
                                               + ")" + kCifar10Hint);
        return file.string();
    };
    std::vector<std::string> trainFiles;
    for (int i = 1; i <= 5; ++i)
        trainFiles.push_back(require("data_batch_" + std::to_string(i) + ".bin"));
    DatasetSplits splits;
    splits.train = std::make_shared<Dataset>(loadCifar10(trainFiles, source.normalize));
    splits.test = std::make_shared<Dataset>(loadCifar10({require("test_batch.bin")}, source.normalize));
    return splits;
}

} // namespace

DatasetSplits loadDatasets(const spec::Experiment& experiment)
{
    const auto& source = experiment.data.source;
    DatasetSplits splits;
    if (source.type == "fashion_mnist" || source.type == "mnist")
        splits = loadMnistDirectory(experiment);
    else if (source.type == "idx")
        splits = loadIdxFiles(experiment);
    else if (source.type == "cifar10")
        splits = loadCifar10Directory(experiment);
    else if (source.type == "text")
        splits = loadText(spec::resolvePath(experiment, source.train), spec::resolvePath(experiment, source.test),
                          source.vocabSize, source.maxLength);
    else if (source.type == "synthetic")
        splits = makeSynthetic(source, experiment.seed);
    else
        throw ConfigError("data.source.type", "unknown data source '" + source.type + "'");

    splits.train->truncate(experiment.data.trainLimit);
    if (splits.test)
        splits.test->truncate(experiment.data.testLimit);
    return splits;
}

} // namespace strata::data
