#pragma once
// The models the benchmarks train, in our JSON model format (as in resources/experiments/):
// bench/README.md's MLP, CNN and LSTM (bench_multiworker.py writes the same CNN), and the
// GEMM-bound MLP of the GPU benchmark.

#include <string_view>

namespace strata::bench {

constexpr const char* kMlp = R"({
    "input_shape": [28, 28],
    "layers": [
        {"type": "Flatten"},
        {"type": "Dense", "units": 128, "activation": "relu"},
        {"type": "Dense", "units": 10}
    ]})";
constexpr const char* kCnn = R"({
    "input_shape": [32, 32, 3],
    "layers": [
        {"type": "Conv2D", "filters": 32, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Conv2D", "filters": 64, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Flatten"},
        {"type": "Dense", "units": 64, "activation": "relu"},
        {"type": "Dense", "units": 10}
    ]})";

// The CNN with BatchNormalization after each convolution (which then has no bias).
constexpr const char* kCnnBatchNorm = R"({
    "input_shape": [32, 32, 3],
    "layers": [
        {"type": "Conv2D", "filters": 32, "kernel_size": 3, "use_bias": false},
        {"type": "BatchNormalization"},
        {"type": "Activation", "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Conv2D", "filters": 64, "kernel_size": 3, "use_bias": false},
        {"type": "BatchNormalization"},
        {"type": "Activation", "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Flatten"},
        {"type": "Dense", "units": 64, "activation": "relu"},
        {"type": "Dense", "units": 10}
    ]})";

// A recurrent model: 50 steps of 32 features -> LSTM(64) -> Dense(10) (torch_train.py's
// nn.LSTM(32, 64, batch_first=True) and the last step's output through nn.Linear(64, 10)).
constexpr const char* kLstm = R"({
    "input_shape": [50, 32],
    "layers": [
        {"type": "LSTM", "units": 64},
        {"type": "Dense", "units": 10}
    ]})";

// GEMM-bound: 4096-wide layers (at batch 1024 nearly all time is in the GEMMs), for the GPU
// benchmark's fraction of cuBLAS's peak.
constexpr const char* kGemm = R"({
    "input_shape": [4096],
    "layers": [
        {"type": "Dense", "units": 4096, "activation": "relu"},
        {"type": "Dense", "units": 4096, "activation": "relu"},
        {"type": "Dense", "units": 4096, "activation": "relu"},
        {"type": "Dense", "units": 10}
    ]})";

// The model a benchmark names (mlp, cnn, cnn-bn, lstm, gemm); null for another name.
inline const char* modelNamed(std::string_view name)
{
    if (name == "mlp")
        return kMlp;
    if (name == "cnn")
        return kCnn;
    if (name == "cnn-bn")
        return kCnnBatchNorm;
    if (name == "lstm")
        return kLstm;
    if (name == "gemm")
        return kGemm;
    return nullptr;
}

} // namespace strata::bench
