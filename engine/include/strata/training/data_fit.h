#pragma once
// Checks that a dataset fits a model and its loss, with messages naming both sides, and
// adapts what Keras users adapt by hand: (28, 28) images for an input of (28, 28, 1), and
// class indices one-hot encoded for categorical_crossentropy.

#include "strata/data/dataset.h"
#include "strata/schema/experiment.h"
#include "strata/tensor/tensor.h"

namespace strata::run {

// Makes the dataset's examples the model's input shape when they differ only by axes of
// size 1; otherwise throws ShapeError naming both shapes.
void adaptFeatures(data::Dataset& dataset, const Shape& modelInput, const std::string& split);

// Turns batches of dataset labels into the targets the loss expects.
class TargetEncoder {
public:
    // Throws ShapeError when labels and model outputs cannot work with the loss.
    TargetEncoder(const data::Dataset& dataset, const Shape& modelOutput, const schema::LossSpec& loss);
    // The targets for a batch of labels `y` (returns `y` itself when nothing changes).
    const Tensor& encode(const Tensor& y);

private:
    int64_t m_oneHotClasses = 0; // > 0: one-hot encode class indices
    Tensor m_encoded;
};

} // namespace strata::run
