#include "convolution_onednn.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <unordered_map>

namespace strata::nn {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

memory::desc f32(const memory::dims& dims, Tag tag) { return {dims, memory::data_type::f32, tag}; }

// One operand of a primitive: the caller's memory, and a copy in the primitive's own layout
// when the primitive wants another one (reordered on the way in or out).
class Operand {
public:
    Operand() = default;
    Operand(const memory::desc& user, const memory::desc& wanted)
        : m_user(user, onednn::cpuEngine(), DNNL_MEMORY_NONE), m_staged(wanted != user)
    {
        if (m_staged) {
            m_inner = memory(wanted, onednn::cpuEngine());
            m_toInner = dnnl::reorder(m_user, m_inner);
            m_toUser = dnnl::reorder(m_inner, m_user);
        }
    }

    // The caller's data as the primitive reads it: reordered into the copy when staged.
    const memory& read(const float* data)
    {
        m_user.set_data_handle(const_cast<float*>(data));
        if (!m_staged)
            return m_user;
        onednn::execute(m_toInner, {{DNNL_ARG_FROM, m_user}, {DNNL_ARG_TO, m_inner}});
        return m_inner;
    }
    // What the last read() left for the primitive, for a later pass reading the same data.
    const memory& again(const float* data)
    {
        m_user.set_data_handle(const_cast<float*>(data));
        return m_staged ? m_inner : m_user;
    }
    // Where a primitive writes what the caller wants at `data`; publish() puts it there.
    const memory& target(float* data) { return again(data); }
    void publish()
    {
        if (m_staged)
            onednn::execute(m_toUser, {{DNNL_ARG_FROM, m_inner}, {DNNL_ARG_TO, m_user}});
    }

private:
    memory m_user;
    memory m_inner;
    dnnl::reorder m_toInner;
    dnnl::reorder m_toUser;
    bool m_staged = false;
};

dnnl::algorithm dnnlAlgorithm(ConvAlgorithm a)
{
    return a == ConvAlgorithm::Winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
}

} // namespace

const char* convAlgorithmName(ConvAlgorithm a)
{
    switch (a) {
    case ConvAlgorithm::Im2colGemm: return "im2col+GEMM";
    case ConvAlgorithm::Direct: return "oneDNN direct";
    case ConvAlgorithm::Winograd: return "oneDNN Winograd";
    }
    return "?";
}

ConvAlgorithm chooseConvAlgorithm(const Window2D& g, int64_t filters)
{
    // STRATA_CONV_ALGORITHM names one path for every convolution (to compare them, as
    // bench/README.md does, or to step around a oneDNN problem; a path oneDNN lacks for a
    // layer falls back as usual).
    if (const char* forced = std::getenv("STRATA_CONV_ALGORITHM")) {
        const std::string name = forced;
        if (name == "im2col")
            return ConvAlgorithm::Im2colGemm;
        if (name == "direct")
            return ConvAlgorithm::Direct;
        if (name == "winograd")
            return ConvAlgorithm::Winograd;
    }
    // docs/decisions.md, "Which convolution path": Winograd F(4x4, 3x3) does a quarter of the
    // multiplications and pays for its transforms once both channel counts fill a 16-wide
    // block; everything else runs oneDNN's direct convolution on NHWC.
    const bool winograd = g.kernelH == 3 && g.kernelW == 3 && g.strideH == 1 && g.strideW == 1 &&
                          g.channels % 16 == 0 && filters % 16 == 0;
    return winograd ? ConvAlgorithm::Winograd : ConvAlgorithm::Direct;
}

struct OneDnnConvolution::Plan {
    dnnl::convolution_forward forward;
    dnnl::convolution_backward_data backwardData;
    dnnl::convolution_backward_weights backwardWeights;
    Operand src, weights, bias, dst;          // forward
    Operand diffDst, diffSrc;                 // backward data
    Operand diffWeights, diffBias;            // backward weights
    // Only where a backward pass wants another layout than the copy an earlier pass made
    // (else it reads that copy again).
    std::optional<Operand> weightsForData, srcForWeights, diffDstForWeights;
};

OneDnnConvolution::OneDnnConvolution(const Window2D& g, int64_t filters, bool bias, bool relu, ConvAlgorithm algorithm)
    : m_window(g), m_filters(filters), m_bias(bias), m_relu(relu), m_algorithm(algorithm)
{
}

OneDnnConvolution::~OneDnnConvolution() = default;

void OneDnnConvolution::prepare(int64_t batch) { plan(batch); }

OneDnnConvolution::Plan& OneDnnConvolution::plan(int64_t batch)
{
    return m_plans.get(batch, [this](int64_t b) { return build(b); });
}

std::unique_ptr<OneDnnConvolution::Plan> OneDnnConvolution::build(int64_t batch) const
{
    const Window2D& g = m_window;
    const memory::dims srcDims{batch, g.channels, g.height, g.width};
    const memory::dims dstDims{batch, m_filters, g.outHeight, g.outWidth};
    const memory::dims weightDims{m_filters, g.channels, g.kernelH, g.kernelW};
    const memory::dims strides{g.strideH, g.strideW}, padL{g.padTop, g.padLeft}, padR{g.padBottom, g.padRight};
    const memory::desc srcUser = f32(srcDims, Tag::nhwc), dstUser = f32(dstDims, Tag::nhwc);
    const memory::desc weightsUser = f32(weightDims, Tag::hwio), biasUser = f32({m_filters}, Tag::x);
    // Direct convolutions have NHWC kernels of their own; Winograd's work on 16-channel blocks.
    const Tag activations = m_algorithm == ConvAlgorithm::Winograd ? Tag::any : Tag::nhwc;
    const memory::desc srcAny = f32(srcDims, activations), dstAny = f32(dstDims, activations);
    const memory::desc weightsAny = f32(weightDims, Tag::any);
    const dnnl::algorithm alg = dnnlAlgorithm(m_algorithm);
    dnnl::engine& engine = onednn::cpuEngine();

    using Fwd = dnnl::convolution_forward;
    using BwdData = dnnl::convolution_backward_data;
    using BwdWeights = dnnl::convolution_backward_weights;
    dnnl::primitive_attr attr;
    if (m_relu) {
        dnnl::post_ops ops;
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        attr.set_post_ops(ops);
    }
    const Fwd::primitive_desc fwd(
        m_bias ? Fwd::desc(dnnl::prop_kind::forward_training, alg, srcAny, weightsAny, biasUser, dstAny, strides, padL, padR)
               : Fwd::desc(dnnl::prop_kind::forward_training, alg, srcAny, weightsAny, dstAny, strides, padL, padR),
        attr, engine);
    const BwdData::primitive_desc data(BwdData::desc(alg, srcAny, weightsAny, dstAny, strides, padL, padR), engine, fwd);
    const BwdWeights::primitive_desc weights(
        m_bias ? BwdWeights::desc(alg, srcAny, weightsAny, biasUser, dstAny, strides, padL, padR)
               : BwdWeights::desc(alg, srcAny, weightsAny, dstAny, strides, padL, padR),
        engine, fwd);

    auto p = std::make_unique<Plan>();
    p->forward = Fwd(fwd);
    p->backwardData = BwdData(data);
    p->backwardWeights = BwdWeights(weights);
    p->src = Operand(srcUser, fwd.src_desc());
    p->weights = Operand(weightsUser, fwd.weights_desc());
    p->dst = Operand(dstUser, fwd.dst_desc());
    p->diffDst = Operand(dstUser, data.diff_dst_desc());
    p->diffSrc = Operand(srcUser, data.diff_src_desc());
    if (data.weights_desc() != fwd.weights_desc())
        p->weightsForData.emplace(weightsUser, data.weights_desc());
    if (weights.src_desc() != fwd.src_desc())
        p->srcForWeights.emplace(srcUser, weights.src_desc());
    if (weights.diff_dst_desc() != data.diff_dst_desc())
        p->diffDstForWeights.emplace(dstUser, weights.diff_dst_desc());
    p->diffWeights = Operand(weightsUser, weights.diff_weights_desc());
    if (m_bias) {
        p->bias = Operand(biasUser, fwd.bias_desc());
        p->diffBias = Operand(biasUser, weights.diff_bias_desc());
    }
    return p;
}

void OneDnnConvolution::forward(int64_t batch, const float* x, const float* kernel, const float* bias, float* y)
{
    Plan& p = plan(batch);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, p.src.read(x)}, {DNNL_ARG_WEIGHTS, p.weights.read(kernel)}, {DNNL_ARG_DST, p.dst.target(y)}};
    if (m_bias)
        args.emplace(DNNL_ARG_BIAS, p.bias.read(bias));
    onednn::execute(p.forward, args);
    p.dst.publish();
}

void OneDnnConvolution::backward(int64_t batch, const float* x, const float* dy, const float* kernel,
                                 float* gradKernel, float* gradBias, float* dx)
{
    Plan& p = plan(batch);
    const memory diffDst = p.diffDst.read(dy);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, p.srcForWeights ? p.srcForWeights->read(x) : p.src.again(x)},
        {DNNL_ARG_DIFF_DST, p.diffDstForWeights ? p.diffDstForWeights->read(dy) : diffDst},
        {DNNL_ARG_DIFF_WEIGHTS, p.diffWeights.target(gradKernel)}};
    if (m_bias)
        args.emplace(DNNL_ARG_DIFF_BIAS, p.diffBias.target(gradBias));
    onednn::execute(p.backwardWeights, args);
    p.diffWeights.publish();
    if (m_bias)
        p.diffBias.publish();
    if (dx) {
        onednn::execute(p.backwardData, {{DNNL_ARG_DIFF_DST, diffDst},
                                   {DNNL_ARG_WEIGHTS, p.weightsForData ? p.weightsForData->read(kernel)
                                                                       : p.weights.again(kernel)},
                                   {DNNL_ARG_DIFF_SRC, p.diffSrc.target(dx)}});
        p.diffSrc.publish();
    }
}

} // namespace strata::nn
