// The convolutions and the pooling layers through cuDNN, NHWC as the CPU path. Descriptors and
// the chosen algorithms are cached per thread and geometry (a layer's geometry repeats every step).

#include "cuda_check.h"
#include "device_context.h"
#include "cuda_ops.h"
#include "host.h"

#include <map>
#include <memory>
#include <tuple>

namespace strata::cuda {

namespace {

int i32(int64_t v) { return static_cast<int>(v); }

struct TensorDesc {
    cudnnTensorDescriptor_t d = nullptr;
    ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
};
struct FilterDesc {
    cudnnFilterDescriptor_t d = nullptr;
    ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
};
struct ConvDesc {
    cudnnConvolutionDescriptor_t d = nullptr;
    ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
};
struct PoolDesc {
    cudnnPoolingDescriptor_t d = nullptr;
    ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
};

// Everything cuDNN needs for one geometry, built once.
struct Plan {
    TensorDesc x, y;
    FilterDesc w;
    ConvDesc conv;
    PoolDesc pool;
    cudnnConvolutionFwdAlgo_t forwardAlgo{};
    cudnnConvolutionBwdDataAlgo_t dataAlgo{};
    cudnnConvolutionBwdFilterAlgo_t filterAlgo{};
    size_t forwardBytes = 0, dataBytes = 0, filterBytes = 0;
};

// What a plan computes: a convolution, or pooling with one of cuDNN's modes.
enum class PlanKind { Convolution, MaxPool, AveragePool };

auto key(int device, const ConvGeometry& g, PlanKind kind)
{
    return std::make_tuple(device, kind, host().precision() != gpu::Precision::Float32, g.batch, g.height, g.width, g.channels, g.outHeight, g.outWidth,
                            g.filters, g.kernelH, g.kernelW, g.strideH, g.strideW, g.padH, g.padW);
}

Plan& plan(int device, const ConvGeometry& g, PlanKind kind)
{
    thread_local std::map<decltype(key(0, g, kind)), std::unique_ptr<Plan>> plans;
    auto& slot = plans[key(device, g, kind)];
    if (slot)
        return *slot;
    const bool pooling = kind != PlanKind::Convolution;
    auto p = std::make_unique<Plan>();
    const int outChannels = i32(pooling ? g.channels : g.filters);
    STRATA_GPU_CHECK(device, cudnnCreateTensorDescriptor(&p->x.d));
    STRATA_GPU_CHECK(device, cudnnSetTensor4dDescriptor(p->x.d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, i32(g.batch),
                                                        i32(g.channels), i32(g.height), i32(g.width)));
    STRATA_GPU_CHECK(device, cudnnCreateTensorDescriptor(&p->y.d));
    STRATA_GPU_CHECK(device, cudnnSetTensor4dDescriptor(p->y.d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, i32(g.batch),
                                                        outChannels, i32(g.outHeight), i32(g.outWidth)));
    if (pooling) {
        STRATA_GPU_CHECK(device, cudnnCreatePoolingDescriptor(&p->pool.d));
        // Average pooling counts only the window's values inside the image, as TensorFlow.
        const cudnnPoolingMode_t mode = kind == PlanKind::MaxPool ? CUDNN_POOLING_MAX_DETERMINISTIC
                                                                   : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
        STRATA_GPU_CHECK(device, cudnnSetPooling2dDescriptor(p->pool.d, mode,
                                                             CUDNN_NOT_PROPAGATE_NAN, i32(g.kernelH), i32(g.kernelW),
                                                             i32(g.padH), i32(g.padW), i32(g.strideH), i32(g.strideW)));
        slot = std::move(p);
        return *slot;
    }
    cudnnHandle_t h = lane(device).cudnn;
    STRATA_GPU_CHECK(device, cudnnCreateFilterDescriptor(&p->w.d));
    STRATA_GPU_CHECK(device, cudnnSetFilter4dDescriptor(p->w.d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, i32(g.filters),
                                                        i32(g.channels), i32(g.kernelH), i32(g.kernelW)));
    STRATA_GPU_CHECK(device, cudnnCreateConvolutionDescriptor(&p->conv.d));
    STRATA_GPU_CHECK(device, cudnnSetConvolution2dDescriptor(p->conv.d, i32(g.padH), i32(g.padW), i32(g.strideH),
                                                             i32(g.strideW), 1, 1, CUDNN_CROSS_CORRELATION,
                                                             CUDNN_DATA_FLOAT));
    // Plain float32 FMA unless training.precision asks for tensor cores (TF32 for float32
    // data): cuDNN's default would allow them, an opt-in here.
    const bool tensorCores = host().precision() != gpu::Precision::Float32;
    STRATA_GPU_CHECK(device, cudnnSetConvolutionMathType(p->conv.d, tensorCores ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
    // Measured, not guessed (cuDNN times each algorithm once per geometry, as PyTorch's
    // cudnn.benchmark does); the first is the fastest.
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd{};
    STRATA_GPU_CHECK(device, cudnnFindConvolutionForwardAlgorithm(h, p->x.d, p->w.d, p->conv.d, p->y.d, 1, &found,
                                                                  &fwd));
    p->forwardAlgo = fwd.algo;
    cudnnConvolutionBwdDataAlgoPerf_t data{};
    STRATA_GPU_CHECK(device, cudnnFindConvolutionBackwardDataAlgorithm(h, p->w.d, p->y.d, p->conv.d, p->x.d, 1,
                                                                       &found, &data));
    p->dataAlgo = data.algo;
    cudnnConvolutionBwdFilterAlgoPerf_t filter{};
    STRATA_GPU_CHECK(device, cudnnFindConvolutionBackwardFilterAlgorithm(h, p->x.d, p->y.d, p->conv.d, p->w.d, 1,
                                                                         &found, &filter));
    p->filterAlgo = filter.algo;
    STRATA_GPU_CHECK(device, cudnnGetConvolutionForwardWorkspaceSize(h, p->x.d, p->w.d, p->conv.d, p->y.d,
                                                                     p->forwardAlgo, &p->forwardBytes));
    STRATA_GPU_CHECK(device, cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->w.d, p->y.d, p->conv.d, p->x.d,
                                                                          p->dataAlgo, &p->dataBytes));
    STRATA_GPU_CHECK(device, cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p->x.d, p->y.d, p->conv.d, p->w.d,
                                                                            p->filterAlgo, &p->filterBytes));
    slot = std::move(p);
    return *slot;
}

} // namespace

void CudaOps::convForward(int device, const ConvGeometry& g, const float* x, const float* w, float beta, float* y)
{
    Plan& p = plan(device, g, PlanKind::Convolution);
    const float one = 1.0f;
    STRATA_GPU_CHECK(device, cudnnConvolutionForward(lane(device).cudnn, &one, p.x.d, x, p.w.d, w, p.conv.d,
                                                     p.forwardAlgo, workspace(device, p.forwardBytes),
                                                     p.forwardBytes, &beta, p.y.d, y));
}

void CudaOps::convBackwardData(int device, const ConvGeometry& g, const float* w, const float* dy, float* dx)
{
    Plan& p = plan(device, g, PlanKind::Convolution);
    const float one = 1.0f, zero = 0.0f;
    STRATA_GPU_CHECK(device, cudnnConvolutionBackwardData(lane(device).cudnn, &one, p.w.d, w, p.y.d, dy, p.conv.d,
                                                          p.dataAlgo, workspace(device, p.dataBytes), p.dataBytes,
                                                          &zero, p.x.d, dx));
}

void CudaOps::convBackwardFilter(int device, const ConvGeometry& g, const float* x, const float* dy, float* dw)
{
    Plan& p = plan(device, g, PlanKind::Convolution);
    const float one = 1.0f, zero = 0.0f;
    STRATA_GPU_CHECK(device, cudnnConvolutionBackwardFilter(lane(device).cudnn, &one, p.x.d, x, p.y.d, dy, p.conv.d,
                                                            p.filterAlgo, workspace(device, p.filterBytes),
                                                            p.filterBytes, &zero, p.w.d, dw));
}

namespace {

void poolForward(int device, const ConvGeometry& g, PlanKind kind, const float* x, float* y)
{
    Plan& p = plan(device, g, kind);
    const float one = 1.0f, zero = 0.0f;
    STRATA_GPU_CHECK(device, cudnnPoolingForward(lane(device).cudnn, p.pool.d, &one, p.x.d, x, &zero, p.y.d, y));
}

void poolBackward(int device, const ConvGeometry& g, PlanKind kind, const float* x, const float* y, const float* dy,
                  float* dx)
{
    Plan& p = plan(device, g, kind);
    const float one = 1.0f, zero = 0.0f;
    STRATA_GPU_CHECK(device, cudnnPoolingBackward(lane(device).cudnn, p.pool.d, &one, p.y.d, y, p.y.d, dy, p.x.d, x,
                                                  &zero, p.x.d, dx));
}

} // namespace

void CudaOps::maxPoolForward(int device, const ConvGeometry& g, const float* x, float* y)
{
    poolForward(device, g, PlanKind::MaxPool, x, y);
}

void CudaOps::maxPoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy, float* dx)
{
    poolBackward(device, g, PlanKind::MaxPool, x, y, dy, dx);
}

void CudaOps::averagePoolForward(int device, const ConvGeometry& g, const float* x, float* y)
{
    poolForward(device, g, PlanKind::AveragePool, x, y);
}

void CudaOps::averagePoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy,
                         float* dx)
{
    poolBackward(device, g, PlanKind::AveragePool, x, y, dy, dx);
}

} // namespace strata::cuda
