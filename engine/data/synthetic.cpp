// Synthetic datasets for the seed examples and for tests: no files, deterministic in the seed.
#include "strata/data/loaders.h"

#include "strata/core/error.h"
#include "strata/core/rng.h"

#include <cmath>

namespace strata::data {

namespace {

// Independent random streams, so the test split does not change with the number of training
// samples and both follow from the same task parameters.
constexpr uint64_t kParameterStream = 0;
constexpr uint64_t kTrainStream = 1;
constexpr uint64_t kTestStream = 2;

// What a task draws once (from the parameter stream) and shares between its splits.
struct TaskParameters {
    std::vector<double> a, b;    // regression: target weights
    std::vector<double> centers; // classification: classes x features
};

TaskParameters drawParameters(const schema::DataSourceSpec& source, uint64_t seed)
{
    TaskParameters p;
    Rng rng(seed, kParameterStream);
    const auto features = static_cast<size_t>(source.features);
    if (source.task == "regression") {
        // Scaled by 1/sqrt(features) so x·a stays of order 1 whatever the width.
        const double scale = 1.0 / std::sqrt(static_cast<double>(source.features));
        p.a.resize(features);
        p.b.resize(features);
        for (double& v : p.a)
            v = rng.normal() * scale;
        for (double& v : p.b)
            v = rng.normal() * scale;
    } else if (source.task == "classification") {
        p.centers.resize(static_cast<size_t>(source.classes) * features);
        for (double& v : p.centers)
            v = rng.normal() * 2.0;
    }
    return p;
}

std::shared_ptr<Dataset> makeSplit(const schema::DataSourceSpec& source, const TaskParameters& p, int64_t samples,
                                   Rng rng, const char* name)
{
    const int64_t features = source.features;
    const auto n = static_cast<size_t>(samples);
    const auto width = static_cast<size_t>(features);
    std::vector<float> x(n * width);
    std::vector<float> y;
    const std::string description = "synthetic " + source.task + " " + name + " (" + std::to_string(samples)
                                    + " examples, " + std::to_string(features) + " features)";

    if (source.task == "random_regression") {
        // np.random.random((samples, features)), then np.random.random((samples, 1)).
        for (float& v : x)
            v = static_cast<float>(rng.uniform());
        y.resize(n);
        for (float& v : y)
            v = static_cast<float>(rng.uniform());
        return std::make_shared<Dataset>(description, Shape{features}, std::move(x), 1.0f, Shape{1}, std::move(y), 0);
    }
    if (source.task == "regression") {
        y.resize(n);
        for (size_t i = 0; i < n; ++i) {
            double xa = 0, xb = 0;
            for (size_t j = 0; j < width; ++j) {
                const double v = rng.uniform();
                x[i * width + j] = static_cast<float>(v);
                xa += v * p.a[j];
                xb += v * p.b[j];
            }
            y[i] = static_cast<float>(std::sin(xa) + 0.5 * xb * xb + source.noise * rng.normal());
        }
        return std::make_shared<Dataset>(description, Shape{features}, std::move(x), 1.0f, Shape{1}, std::move(y), 0);
    }
    // classification: a Gaussian cloud around each class center.
    y.resize(n);
    const auto classes = static_cast<uint64_t>(source.classes);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t label = rng.below(classes);
        y[i] = static_cast<float>(label);
        const double* center = p.centers.data() + label * width;
        for (size_t j = 0; j < width; ++j)
            x[i * width + j] = static_cast<float>(center[j] + source.noise * rng.normal());
    }
    return std::make_shared<Dataset>(description, Shape{features}, std::move(x), 1.0f, Shape{}, std::move(y),
                                     source.classes);
}

} // namespace

DatasetSplits makeSynthetic(const schema::DataSourceSpec& source, uint64_t seed)
{
    if (source.task != "regression" && source.task != "random_regression" && source.task != "classification")
        throw ConfigError("data.source.task", "unknown synthetic task '" + source.task
                                                  + "'; one of: regression, random_regression, classification");
    if (source.features < 1)
        throw ConfigError("data.source.features", "must be at least 1");
    if (source.samples < 1)
        throw ConfigError("data.source.samples", "must be at least 1");
    if (source.testSamples < 0)
        throw ConfigError("data.source.test_samples", "must not be negative");
    if (source.task == "classification" && source.classes < 2)
        throw ConfigError("data.source.classes", "must be at least 2");

    const TaskParameters parameters = drawParameters(source, seed);
    DatasetSplits splits;
    splits.train = makeSplit(source, parameters, source.samples, Rng(seed, kTrainStream), "train");
    if (source.testSamples > 0)
        splits.test = makeSplit(source, parameters, source.testSamples, Rng(seed, kTestStream), "test");
    return splits;
}

} // namespace strata::data
