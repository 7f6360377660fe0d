#pragma once
// The activation functions by name (C++17, shared with the CUDA backend's declarations).

namespace strata::nn {

enum class Activation { Linear, Relu, Sigmoid, Tanh, Softmax };

} // namespace strata::nn
