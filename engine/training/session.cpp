#include "strata/training/strategy_factory.h"
#include "strata/training/session.h"

#include "strata/core/error.h"
#include "strata/data/loaders.h"
#include "strata/core/host_info.h"
#include "strata/rundir/model_state.h"
#include "strata/tensor/blas.h"
#include "strata/tensor/denormals.h"

#include <cmath>
#include <numeric>

namespace strata::run {

std::vector<int64_t> indexRange(int64_t begin, int64_t end)
{
    std::vector<int64_t> v(static_cast<size_t>(std::max<int64_t>(end - begin, 0)));
    std::iota(v.begin(), v.end(), begin);
    return v;
}

Session Session::open(schema::Experiment experiment, const distribute::TaskContext& task)
{
    Session s;
    s.experiment = std::move(experiment);
    flushDenormalsToZero();
    s.host = distribute::HostDevices::probe(s.experiment.strategy.logicalCpuDevices,
                                      s.experiment.strategy.logicalGpuDevices);
    // This thread evaluates (and computes replica 0, which sets its own count per step).
    s.threads = taskThreads(s.experiment, s.host, task);
    blas::setThreads(s.threads);
    distribute::configureGpus(s.experiment, s.host);
    s.strategy = run::createStrategy(s.experiment, s.host, task);
    s.data = data::loadDatasets(s.experiment);
    const nn::Sequential& model = s.strategy->model();
    adaptFeatures(*s.data.train, model.inputShape(), "training");
    if (s.data.test)
        adaptFeatures(*s.data.test, model.inputShape(), "test");
    s.targets = std::make_unique<TargetEncoder>(*s.data.train, model.outputShape(), s.experiment.training.loss);
    return s;
}

TrainingSplit Session::split() const
{
    TrainingSplit out;
    const int64_t n = data.train->size();
    if (experiment.data.validation == "split") {
        // Keras' validation_split: the last fraction, taken before shuffling.
        const auto validation = static_cast<int64_t>(std::floor(static_cast<double>(n) * experiment.data.validationSplit));
        out.train = indexRange(0, n - validation);
        out.validation = indexRange(n - validation, n);
    } else {
        out.train = indexRange(0, n);
        if (experiment.data.validation == "test") {
            if (!data.test)
                throw ConfigError("data.validation", "is \"test\" but the data source has no test split");
            out.validation = indexRange(0, data.test->size());
        }
    }
    if (out.train.empty())
        throw DataError(data.train->description(), "no training examples left");
    return out;
}

std::shared_ptr<data::Dataset> Session::validationSet() const
{
    return experiment.data.validation == "test" ? data.test : data.train;
}

nlohmann::ordered_json Session::doneFields(const RunEnd& end, const std::string& runDir,
                                           std::chrono::steady_clock::time_point started)
{
    nlohmann::ordered_json done{{"status", end.stopped ? "stopped" : "completed"},
                                {"steps", end.steps},
                                {"epochs", end.epochs},
                                {"run_dir", runDir},
                                {"weights_crc32", weightsChecksum(model())}};
    if (!end.lastTrain.is_null())
        done["train"] = end.lastTrain;
    if (!end.lastValidation.is_null())
        done["validation"] = end.lastValidation;
    if (!end.stopped && experiment.data.evaluateTest && data.test)
        done["test"] = evaluate(data.test, indexRange(0, data.test->size())).toJson();
    done["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    done["peak_rss_bytes"] = peakResidentMemoryBytes();
    return done;
}

std::vector<std::unique_ptr<nn::Metric>> Session::createMetrics() const
{
    std::vector<std::unique_ptr<nn::Metric>> metrics;
    for (const auto& name : experiment.training.metrics)
        metrics.push_back(nn::createMetric(name, experiment.training.loss, strategy->loss().fromLogits()));
    return metrics;
}

Evaluation Session::evaluate(std::shared_ptr<data::Dataset> dataset, std::vector<int64_t> indices)
{
    auto metrics = createMetrics();
    blas::setThreads(threads);
    return run::evaluate(model(), strategy->loss(), metrics, *targets, std::move(dataset), std::move(indices),
                         experiment.training.batchSize);
}

} // namespace strata::run
