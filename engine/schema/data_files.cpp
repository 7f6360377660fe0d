// Finds the files each data source type expects, with messages that say where the data comes
// from when it is missing.
#include "strata/schema/data_files.h"

#include "strata/core/error.h"

#include <filesystem>

namespace strata::schema {

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

// The four IDX files of an MNIST-family directory: train images, labels, test images, labels.
std::vector<std::string> mnistFiles(const Experiment& experiment)
{
    const auto& source = experiment.data.source;
    const std::string hint = source.type == "fashion_mnist" ? kFashionMnistHint : "";
    const fs::path dir = resolvePath(experiment, source.dir);
    if (!isDirectory(dir))
        throw DataError(dir.string(), "directory not found" + hint);
    // Looked up in order so the first missing file is the one named.
    std::vector<std::string> files;
    for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                             "t10k-labels-idx1-ubyte"})
        files.push_back(findIdxFile(dir, name, hint));
    return files;
}

// The files `idx` names: train images and labels, then the test ones when given.
std::vector<std::string> idxFiles(const Experiment& experiment)
{
    const auto& source = experiment.data.source;
    if (source.trainImages.empty() || source.trainLabels.empty())
        throw ConfigError("data.source", "idx needs train_images and train_labels");
    if (source.testImages.empty() != source.testLabels.empty())
        throw ConfigError("data.source", "test_images and test_labels go together");
    std::vector<std::string> files;
    for (const std::string* p : {&source.trainImages, &source.trainLabels, &source.testImages, &source.testLabels})
        if (!p->empty())
            files.push_back(resolvePath(experiment, *p));
    for (const std::string& f : files)
        if (!isFile(f))
            throw DataError(f, "file not found");
    return files;
}

// CIFAR-10's five training batches, then its test batch.
std::vector<std::string> cifar10Files(const Experiment& experiment)
{
    const auto& source = experiment.data.source;
    const fs::path given = resolvePath(experiment, source.dir);
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
    std::vector<std::string> files;
    for (int i = 1; i <= 5; ++i)
        files.push_back(require("data_batch_" + std::to_string(i) + ".bin"));
    files.push_back(require("test_batch.bin"));
    return files;
}

std::vector<std::string> textPaths(const Experiment& experiment)
{
    const auto& source = experiment.data.source;
    std::vector<std::string> paths;
    for (const std::string* p : {&source.train, &source.test}) {
        if (p->empty())
            continue;
        const std::string path = resolvePath(experiment, *p);
        if (!isFile(path) && !isDirectory(path))
            throw DataError(path, "file or directory not found");
        paths.push_back(path);
    }
    return paths;
}

} // namespace

std::vector<std::string> dataFiles(const Experiment& experiment)
{
    const std::string& type = experiment.data.source.type;
    if (type == "fashion_mnist" || type == "mnist")
        return mnistFiles(experiment);
    if (type == "idx")
        return idxFiles(experiment);
    if (type == "cifar10")
        return cifar10Files(experiment);
    if (type == "text")
        return textPaths(experiment);
    return {};
}

} // namespace strata::schema
