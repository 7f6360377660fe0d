#pragma once
// Max and average pooling on the CPU through oneDNN's pooling primitives, on the engine's
// NHWC tensors (measured against the engine's own loops: bench/README.md, "Pooling").
// Max pooling keeps oneDNN's workspace (where each maximum came from) for the backward pass.
// Primitives are built once per batch size and thread count.

#include "strata/nn/window2d.h"
#include "tensor/onednn.h"

#include <cstdint>
#include <memory>

namespace strata::nn {

class OneDnnPooling {
public:
    enum class Kind { Max, Average }; // average: over the window's positions inside the image, as TF
    OneDnnPooling(const Window2D& g, Kind kind);
    ~OneDnnPooling();

    void forward(int64_t batch, const float* x, float* y);
    // After forward for the same batch: dx from dy.
    void backward(int64_t batch, const float* dy, float* dx);

private:
    struct Plan;
    Plan& plan(int64_t batch);
    std::unique_ptr<Plan> build(int64_t batch) const;
    // Runs `primitive` with `args` and the workspace max pooling keeps.
    void run(const Plan& p, const dnnl::primitive& primitive, std::unordered_map<int, dnnl::memory> args) const;

    Window2D m_window;
    Kind m_kind;
    onednn::Plans<Plan> m_plans;
};

} // namespace strata::nn
