#pragma once
// Dynamic loss scaling, as Keras' LossScaleOptimizer: the loss gradient is multiplied by
// factor() before the backward pass, so that small gradients survive low-precision products;
// after the gradients are combined, unscale() divides them again and tells whether every one
// is finite. A step with an overflow is skipped and the factor halves; after `growthSteps`
// finite steps in a row it doubles. Used under training.precision "mixed_bfloat16".

#include "strata/tensor/tensor.h"

#include <cstdint>

namespace strata::nn {

class LossScale {
public:
    explicit LossScale(float initial = 32768.0f, int64_t growthSteps = 2000)
        : m_factor(initial), m_growthSteps(growthSteps)
    {
    }

    float factor() const { return m_factor; }
    // gradients /= factor(), on their device; false when any value is infinite or NaN.
    bool unscale(Tensor& gradients) const;
    // After a step: halves on an overflow, doubles after `growthSteps` clean steps.
    void update(bool finite);
    // The state a checkpoint keeps, so that a resumed run scales as an uninterrupted one.
    int64_t cleanSteps() const { return m_cleanSteps; }
    void restore(float factor, int64_t cleanSteps)
    {
        m_factor = factor;
        m_cleanSteps = cleanSteps;
    }

private:
    float m_factor;
    int64_t m_growthSteps;
    int64_t m_cleanSteps = 0;
};

} // namespace strata::nn
