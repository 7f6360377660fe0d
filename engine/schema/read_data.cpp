#include "experiment_sections.h"

#include <cstdlib>

namespace strata::schema {

namespace {

// A dataset directory of the defaults table, which are where Debian's dataset packages install,
// under the root STRATA_DATASETS_DIR names instead when it is set (scripts/gpu-check.sh points
// it at a carried copy).
std::string datasetDir(std::string_view tableDir)
{
    constexpr std::string_view debianRoot = "/usr/share/datasets";
    const char* root = std::getenv("STRATA_DATASETS_DIR");
    if (!root || !*root || !tableDir.starts_with(debianRoot))
        return std::string(tableDir);
    std::string dir = root;
    dir += tableDir.substr(debianRoot.size());
    return dir;
}

DataSourceSpec readSource(const Json* json, const std::string& path, Problems& problems)
{
    DataSourceSpec s;
    if (!json) {
        problems.add(path, "is required (e.g. {\"type\": \"fashion_mnist\"})");
        return s;
    }
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return s;
    s.type = r.choice("type", "", dataSourceNames());
    if (!r.has("type"))
        problems.add(r.pathOf("type"), "is required; one of: fashion_mnist, mnist, idx, cifar10, text, synthetic");
    s.normalize = r.boolean("normalize", s.normalize);
    if (s.type == "fashion_mnist" || s.type == "mnist") {
        s.dir = r.string("dir", s.type == "fashion_mnist" ? datasetDir(defaultText("data.source.dir", "fashion_mnist")) : "");
        if (s.dir.empty())
            problems.add(r.pathOf("dir"), "is required for mnist (the directory with train-images-idx3-ubyte.gz, ...)");
    } else if (s.type == "cifar10") {
        s.dir = r.maybeString("dir", true).value_or("");
    } else if (s.type == "idx") {
        s.trainImages = r.maybeString("train_images", true).value_or("");
        s.trainLabels = r.maybeString("train_labels", true).value_or("");
        s.testImages = r.string("test_images", "");
        s.testLabels = r.string("test_labels", "");
        if (s.testImages.empty() != s.testLabels.empty())
            problems.add(r.pathOf(s.testImages.empty() ? "test_images" : "test_labels"),
                         "test_images and test_labels go together");
    } else if (s.type == "text") {
        s.train = r.maybeString("train", true).value_or("");
        s.test = r.string("test", "");
        s.vocabSize = r.integer("vocab_size", s.vocabSize, 3, 10'000'000);
        s.maxLength = r.integer("max_length", s.maxLength, 1, 1'000'000);
    } else if (s.type == "synthetic") {
        s.task = r.choice("task", std::string(defaultText("data.source.task")), {"regression", "random_regression", "classification"});
        s.samples = r.integer("samples", s.samples, 1, 100'000'000);
        s.testSamples = r.integer("test_samples", s.testSamples, 0, 100'000'000);
        s.features = r.integer("features", s.features, 1, 1'000'000);
        s.classes = r.integer("classes", s.classes, 2, 1'000'000);
        s.noise = r.number("noise", defaultWhen<double>("data.source.noise", s.task), 0, 1e6);
    }
    r.finish();
    return s;
}

} // namespace

DataSpec readData(const Json* json, const std::string& path, Problems& problems)
{
    DataSpec d;
    if (!json) {
        problems.add(path, "is required");
        return d;
    }
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return d;
    d.source = readSource(r.child("source"), r.pathOf("source"), problems);
    d.validation = r.choice("validation", d.validation, {"none", "test", "split"});
    d.validationSplit = r.number("validation_split", d.validationSplit, 0, 1);
    if (d.validation == "split" && !(d.validationSplit > 0 && d.validationSplit < 1))
        problems.add(r.pathOf("validation_split"), "must be between 0 and 1 (exclusive) when validation is \"split\"");
    if (d.validation != "split" && r.has("validation_split"))
        problems.add(r.pathOf("validation_split"), "is only used with \"validation\": \"split\"");
    d.shuffle = r.boolean("shuffle", d.shuffle);
    d.prefetch = r.integer("prefetch", d.prefetch, 0, 64);
    d.shardPolicy = r.choice("shard_policy", d.shardPolicy, {"AUTO", "OFF", "FILE", "DATA"});
    d.evaluateTest = r.boolean("evaluate_test", d.evaluateTest);
    d.trainLimit = r.integer("train_limit", d.trainLimit, 0);
    d.testLimit = r.integer("test_limit", d.testLimit, 0);
    r.finish();
    return d;
}

} // namespace strata::schema
