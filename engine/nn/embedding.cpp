#include "strata/nn/embedding.h"

#include "cuda/ops.h"
#include "nn/math/loss_math.h"
#include "strata/core/error.h"

#include <cstring>

namespace strata::nn {

Embedding::Embedding(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Layer(spec, inputShape, {inputShape[0], spec.integer("output_dim")}), m_vocab(spec.integer("input_dim")),
      m_dim(spec.integer("output_dim"))
{
    createParameters(rng);
}

void Embedding::outsideVocabulary(float id) const
{
    throw ShapeError("layer \"" + name() + "\" (Embedding): token id " + std::to_string(id) +
                     " is outside the vocabulary [0, " + std::to_string(m_vocab) + ")");
}

const Tensor& Embedding::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    const int64_t n = x.numel();
    m_output.ensureShape(m_outputShape.withBatch(x.dim(0)), x.device());
    const float* table = m_params[0].value.data();
    if (!x.device().isCpu()) {
        m_input = x;
        float bad = 0;
        if (!cuda::ops().embeddingForward(x.device().index, x.data(), n, table, m_vocab, m_dim, m_output.data(), &bad))
            outsideVocabulary(bad);
        return m_output;
    }
    m_ids.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const float v = x.data()[i];
        if (!math::isClassIndex(v, m_vocab))
            outsideVocabulary(v);
        m_ids[static_cast<size_t>(i)] = static_cast<int32_t>(v);
        std::memcpy(m_output.data() + i * m_dim, table + m_ids[static_cast<size_t>(i)] * m_dim,
                    static_cast<size_t>(m_dim) * sizeof(float));
    }
    return m_output;
}

Tensor Embedding::backward(Tensor& dy, bool)
{
    // Token ids have no gradient: only the table's rows receive one.
    Tensor& grad = m_params[0].grad;
    if (!dy.device().isCpu()) {
        cuda::ops().embeddingBackward(dy.device().index, m_input.data(), m_input.numel(), dy.data(), m_vocab, m_dim,
                                grad.data());
        return {};
    }
    grad.setZero();
    const float* g = dy.data();
    for (size_t i = 0; i < m_ids.size(); ++i) {
        float* row = grad.data() + m_ids[i] * m_dim;
        const float* src = g + static_cast<int64_t>(i) * m_dim;
        for (int64_t d = 0; d < m_dim; ++d)
            row[d] += src[d];
    }
    return {};
}

} // namespace strata::nn
