#include "experiment_sections.h"

#include <limits>

namespace strata::schema {

namespace {

// A section given as just its type ("adam" for {"type": "adam"}): an unknown type is
// reported at the section's own path.
Json shorthand(const Json& value, const std::string& path, const std::vector<std::string>& names, Problems& problems)
{
    if (!value.is_string())
        return value;
    if (value == "mean_squared_error")
        return Json{{"type", "mse"}};
    const std::string type = readChoice(value, path, names, problems);
    return type.empty() ? Json::object() : Json{{"type", type}};
}

LossSpec readLoss(const Json* json, const std::string& path, Problems& problems)
{
    LossSpec l;
    if (!json)
        return l;
    const Json obj = shorthand(*json, path, lossNames(), problems);
    ObjectReader r(obj, path, problems);
    if (const Json* type = r.child("type")) {
        const Json canonical = *type == "mean_squared_error" ? Json("mse") : *type;
        const std::string name = readChoice(canonical, r.pathOf("type"), lossNames(), problems);
        if (!name.empty())
            l.type = name;
    }
    l.fromLogits = r.boolean("from_logits", l.fromLogits);
    if (l.fromLogits && l.type == "mse")
        problems.add(r.pathOf("from_logits"), "does not apply to mse");
    r.finish();
    return l;
}

OptimizerSpec readOptimizer(const Json* json, const std::string& path, Problems& problems)
{
    OptimizerSpec o;
    if (!json)
        return o;
    const Json obj = shorthand(*json, path, optimizerNames(), problems);
    ObjectReader r(obj, path, problems);
    o.type = r.choice("type", o.type, optimizerNames());
    o.learningRate = r.number("learning_rate", defaultWhen<double>("training.optimizer.learning_rate", o.type), 0,
                              std::numeric_limits<double>::infinity(), true);
    if (o.type == "sgd") {
        o.momentum = r.number("momentum", o.momentum, 0, 1);
        o.nesterov = r.boolean("nesterov", o.nesterov);
    } else if (o.type == "adam") {
        o.beta1 = r.number("beta_1", o.beta1, 0, 1);
        o.beta2 = r.number("beta_2", o.beta2, 0, 1);
        o.epsilon = r.number("epsilon", o.epsilon, 0, 1, true);
    } else {
        o.rho = r.number("rho", o.rho, 0, 1);
        o.momentum = r.number("momentum", o.momentum, 0, 1);
        o.epsilon = r.number("epsilon", o.epsilon, 0, 1, true);
        o.centered = r.boolean("centered", o.centered);
    }
    r.finish();
    return o;
}

} // namespace

TrainingSpec readTraining(const Json* json, const std::string& path, Problems& problems)
{
    TrainingSpec t;
    if (!json) {
        problems.add(path, "is required");
        return t;
    }
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return t;
    t.epochs = r.integer("epochs", t.epochs, 1, 1'000'000);
    t.batchSize = r.integer("batch_size", t.batchSize, 1, 1'000'000);
    t.stepsPerEpoch = r.integer("steps_per_epoch", t.stepsPerEpoch, 0);
    t.loss = readLoss(r.child("loss"), r.pathOf("loss"), problems);
    if (const Json* m = r.child("metrics")) {
        t.metrics.clear();
        if (!m->is_array()) {
            problems.add(r.pathOf("metrics"), "must be a list, e.g. [\"accuracy\"]");
        } else {
            for (size_t i = 0; i < m->size(); ++i) {
                const std::string name =
                    readChoice((*m)[i], indexPath(r.pathOf("metrics"), i), {"accuracy", "mae", "mse"}, problems);
                if (!name.empty())
                    t.metrics.push_back(name);
            }
        }
    }
    t.optimizer = readOptimizer(r.child("optimizer"), r.pathOf("optimizer"), problems);
    if (const Json* c = r.child("checkpoint")) {
        ObjectReader cr(*c, r.pathOf("checkpoint"), problems);
        t.checkpoint.enabled = cr.boolean("enabled", t.checkpoint.enabled);
        t.checkpoint.everySteps = cr.integer("every_steps", t.checkpoint.everySteps, 0);
        t.checkpoint.everyEpochs = cr.integer("every_epochs", t.checkpoint.everyEpochs, 0);
        cr.finish();
    }
    t.threads = r.integer("threads", t.threads, 0, 4096);
    t.lrScaling = r.choice("lr_scaling", t.lrScaling, {"none", "linear"});
    t.precision = r.choice("precision", t.precision, {"float32", "tf32", "mixed_bfloat16"});
    t.initialWeights = r.string("initial_weights", t.initialWeights);
    r.finish();
    return t;
}

} // namespace strata::schema
