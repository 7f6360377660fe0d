#include "strata/nn/layer.h"

#include "strata/core/error.h"
#include "strata/nn/average_pooling2d.h"
#include "strata/nn/batch_normalization.h"
#include "strata/nn/conv1d.h"
#include "strata/nn/conv2d.h"
#include "strata/nn/dense.h"
#include "strata/nn/dropout.h"
#include "strata/nn/embedding.h"
#include "strata/nn/global_pooling.h"
#include "strata/nn/initializers.h"
#include "strata/nn/layer_normalization.h"
#include "strata/nn/gru.h"
#include "strata/nn/initializers.h"
#include "strata/nn/lstm.h"
#include "strata/nn/max_pooling2d.h"
#include "strata/nn/shape_layers.h"
#include "strata/nn/zero_padding2d.h"

namespace strata::nn {

Layer::Layer(schema::LayerSpec spec, Shape inputShape, Shape outputShape)
    : m_spec(std::move(spec)), m_inputShape(std::move(inputShape)), m_outputShape(std::move(outputShape))
{
}

void Layer::createParameters(Rng& rng)
{
    const schema::LayerType* type = schema::findLayerType(m_spec.type);
    for (const auto& p : type->params(m_spec, m_inputShape)) {
        Parameter param{name() + "/" + p.name, Tensor(p.shape), p.trainable ? Tensor::zeros(p.shape) : Tensor(),
                        p.initializer, p.l2};
        initialize(param.value, p.initializer, rng);
        (p.trainable ? m_params : m_states).push_back(std::move(param));
    }
}

void Layer::checkInput(const Tensor& x) const
{
    if (x.rank() < 1 || x.shape().withoutBatch() != m_inputShape)
        throw ShapeError("layer \"" + name() + "\" (" + m_spec.type + ") expects input " +
                         m_inputShape.strWithBatch() + ", got " + x.shape().str());
}

std::unique_ptr<Layer> createLayer(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
{
    const std::string& t = spec.type;
    if (t == "Dense")
        return std::make_unique<Dense>(spec, inputShape, rng);
    if (t == "Conv2D")
        return std::make_unique<Conv2D>(spec, inputShape, rng);
    if (t == "MaxPooling2D")
        return std::make_unique<MaxPooling2D>(spec, inputShape);
    if (t == "Flatten")
        return std::make_unique<Flatten>(spec, inputShape);
    if (t == "Dropout")
        return std::make_unique<Dropout>(spec, inputShape, rng.next());
    if (t == "Embedding")
        return std::make_unique<Embedding>(spec, inputShape, rng);
    if (t == "GlobalAveragePooling1D" || t == "GlobalAveragePooling2D")
        return std::make_unique<GlobalAveragePooling>(spec, inputShape);
    if (t == "BatchNormalization")
        return std::make_unique<BatchNormalization>(spec, inputShape, rng);
    if (t == "Activation")
        return std::make_unique<ActivationLayer>(spec, inputShape);
    if (t == "Conv1D")
        return std::make_unique<Conv1D>(spec, inputShape, rng);
    if (t == "AveragePooling2D")
        return std::make_unique<AveragePooling2D>(spec, inputShape);
    if (t == "GlobalMaxPooling1D" || t == "GlobalMaxPooling2D")
        return std::make_unique<GlobalMaxPooling>(spec, inputShape);
    if (t == "LayerNormalization")
        return std::make_unique<LayerNormalization>(spec, inputShape, rng);
    if (t == "Reshape")
        return std::make_unique<Reshape>(spec, inputShape);
    if (t == "ZeroPadding2D")
        return std::make_unique<ZeroPadding2D>(spec, inputShape);
    if (t == "LSTM")
        return std::make_unique<LSTM>(spec, inputShape, rng);
    if (t == "GRU")
        return std::make_unique<GRU>(spec, inputShape, rng);
    throw ConfigError("", "unknown layer type \"" + t + "\"");
}

} // namespace strata::nn
