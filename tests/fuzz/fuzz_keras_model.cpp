// A Keras model.to_json() Sequential config (TF 2.x or Keras 3), as an experiment's "model"
// (or a model file) imports it: JSON text to a ModelSpec, then shape inference and the
// summary table. An imported model whose shapes fit must also survive the Keras export:
// kerasModelConfig() imported again gives a model of the same shapes that exports to the
// same config (the config is the fixed point: docs/keras-export.md names the two fields the
// export spells Keras 3's way, MaxPooling2D's strides and Embedding's input_length).

#include "fuzz_support.h"

#include "strata/schema/experiment.h"
#include "strata/schema/keras_format.h"
#include "strata/schema/model_spec.h"

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    schema::ModelSpec model;
    const bool accepted = fuzz::answers([&] {
        const schema::Json json = schema::parseJsonText(std::string(fuzz::text(data, size)), "fuzz-model.json");
        schema::Problems problems;
        model = schema::importKerasModel(json, "model", problems);
        problems.throwIfAny();
    });
    if (!accepted)
        return 0;
    const schema::ModelShapes shapes = schema::inferShapes(model);
    if (!shapes.ok() || model.layers.empty())
        return 0;
    (void)schema::summary(model, shapes);
    const schema::Json exported = schema::kerasModelConfig(model);
    schema::Problems problems;
    const schema::ModelSpec again = schema::importKerasModel(exported, "model", problems);
    if (!problems.empty())
        fuzz::fail("an imported model, exported to Keras, is refused: " + problems.list().front().str() + "\n" +
                   exported.dump());
    const schema::ModelShapes againShapes = schema::inferShapes(again);
    bool sameShapes = againShapes.ok() && againShapes.layers.size() == shapes.layers.size() &&
                      againShapes.totalParams == shapes.totalParams;
    for (size_t i = 0; sameShapes && i < shapes.layers.size(); ++i)
        sameShapes = againShapes.layers[i].output == shapes.layers[i].output;
    if (!sameShapes)
        fuzz::fail("an imported model has other shapes after the Keras export:\n" + exported.dump());
    if (schema::kerasModelConfig(again) != exported)
        fuzz::fail("an imported model exports differently after the Keras export:\n" + exported.dump() + "\n" +
                   schema::kerasModelConfig(again).dump());
    return 0;
}
