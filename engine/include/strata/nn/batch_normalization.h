#pragma once
// BatchNormalization over the last axis (channels), with Keras 3's semantics. Training:
// normalizes with the batch's mean and (biased) variance over every other axis, and moves
// the moving statistics toward them (m = m * momentum + batch * (1 - momentum)). Inference:
// normalizes with the moving statistics. `synchronized`: the batch statistics are those of
// the global batch, summed across every replica of the job (Keras' synchronized=True,
// SyncBatchNormalization), in the forward and the backward pass.
//
// Variables in Keras' order: gamma (scale), beta (center), then the non-trainable
// moving_mean and moving_variance.

#include "strata/nn/layer.h"

#include <memory>

namespace strata::nn {

class ChannelCoefficients;

class BatchNormalization final : public Layer {
public:
    BatchNormalization(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    ~BatchNormalization() override;
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;
    void joinWithoutData(const ForwardContext& ctx, bool backward, bool needInputGrad) override;
    // A ReLU after it is applied in its output pass (the backward pass gets the gradient
    // through the ReLU from the layers after it, as before).
    bool absorbOutputActivation(Activation a) override;

private:
    Parameter* gamma();
    Parameter* beta();
    // The batch's mean and variance (the global batch's when synchronized); updates the moving
    // statistics.
    void batchStatistics(const Tensor* x, const ForwardContext& ctx);
    // dL/dx's per-channel sums over the batch (summed across replicas when synchronized).
    void crossReplicaSum(std::vector<double>& values, double& count) const;

    int64_t m_channels;
    double m_momentum;
    double m_epsilon;
    bool m_synchronized;
    bool m_outputRelu = false;
    const CrossReplicaSum* m_sum = nullptr; // this step's, when synchronized
    bool m_training = false;
    double m_count = 0;          // rows the statistics were taken over (every replica's)
    std::vector<double> m_mean;  // the statistics the forward pass normalized with
    std::vector<double> m_invStd;
    Tensor m_input;
    Tensor m_output;
    Tensor m_gradInput;
    std::unique_ptr<ChannelCoefficients> m_coef;
};

} // namespace strata::nn
