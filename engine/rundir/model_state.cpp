#include "strata/rundir/model_state.h"

#include "strata/core/error.h"

#include <zlib.h>

#include <cstring>

namespace strata::run {

void captureState(const nn::Sequential& model, nn::Optimizer* optimizer, Checkpoint& into)
{
    for (const auto* list : {&model.parameters(), &model.states()})
        for (const nn::Parameter* p : *list)
            into.tensors.emplace_back(p->name, p->value.clone());
    if (!optimizer)
        return;
    for (auto& [name, slot] : optimizer->stateTensors())
        into.tensors.emplace_back("optimizer/" + name, slot->clone());
    into.extra["optimizer"] = {{"name", optimizer->name()}, {"iterations", optimizer->iterations()}};
}

namespace {
void copyInto(const Checkpoint& from, const std::string& name, Tensor& to, const std::string& source)
{
    const Tensor* t = from.find(name);
    if (!t)
        throw ShapeError(source + " has no variable \"" + name + "\": it was written for another model");
    if (t->shape() != to.shape())
        throw ShapeError(source + ": variable \"" + name + "\" has shape " + t->shape().str() + ", the model needs " +
                         to.shape().str() + ": it was written for another model");
    std::memcpy(to.data(), t->data(), to.bytes());
}
} // namespace

void restoreState(const Checkpoint& from, nn::Sequential& model, nn::Optimizer* optimizer, const std::string& source)
{
    for (const auto* list : {&model.parameters(), &model.states()})
        for (nn::Parameter* p : *list)
            copyInto(from, p->name, p->value, source);
    if (!optimizer)
        return;
    const auto info = from.extra.value("optimizer", nlohmann::ordered_json::object());
    if (info.value("name", std::string()) != optimizer->name())
        throw ShapeError(source + " holds " + info.value("name", std::string("no")) +
                         " optimizer state, the experiment uses " + optimizer->name());
    optimizer->prepare(model.parameters());
    for (auto& [name, slot] : optimizer->stateTensors())
        copyInto(from, "optimizer/" + name, *slot, source);
    optimizer->setIterations(info.value("iterations", int64_t{0}));
}

uint32_t weightsChecksum(const nn::Sequential& model)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    for (const auto* list : {&model.parameters(), &model.states()})
        for (const nn::Parameter* p : *list)
            crc = crc32(crc, reinterpret_cast<const Bytef*>(p->value.data()), static_cast<uInt>(p->value.bytes()));
    return static_cast<uint32_t>(crc);
}

void writeWeights(const nn::Sequential& model, int64_t step, const std::string& path)
{
    Checkpoint weights;
    weights.step = step;
    captureState(model, nullptr, weights);
    writeCheckpoint(path, weights);
}

} // namespace strata::run
