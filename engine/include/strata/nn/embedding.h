#pragma once
// Embedding: (batch, steps) token ids -> (batch, steps, output_dim) rows of the table.

#include "strata/nn/layer.h"

#include <vector>

namespace strata::nn {

class Embedding final : public Layer {
public:
    Embedding(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    [[noreturn]] void outsideVocabulary(float id) const;
    int64_t m_vocab;
    int64_t m_dim;
    std::vector<int32_t> m_ids; // host inputs' token ids
    Tensor m_input;             // a GPU input (its float ids)
    Tensor m_output;
};

} // namespace strata::nn
