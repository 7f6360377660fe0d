#include "pooling_onednn.h"

namespace strata::nn {

using dnnl::memory;

struct OneDnnPooling::Plan {
    dnnl::pooling_v2_forward forward;
    dnnl::pooling_v2_backward backward;
    memory src, dst, workspace, diffSrc, diffDst;
};

OneDnnPooling::OneDnnPooling(const Window2D& g, Kind kind) : m_window(g), m_kind(kind) {}

OneDnnPooling::~OneDnnPooling() = default;

OneDnnPooling::Plan& OneDnnPooling::plan(int64_t batch)
{
    return m_plans.get(batch, [this](int64_t b) { return build(b); });
}

std::unique_ptr<OneDnnPooling::Plan> OneDnnPooling::build(int64_t batch) const
{
    const Window2D& g = m_window;
    const memory::desc src({batch, g.channels, g.height, g.width}, memory::data_type::f32, memory::format_tag::nhwc);
    const memory::desc dst({batch, g.channels, g.outHeight, g.outWidth}, memory::data_type::f32,
                           memory::format_tag::nhwc);
    const dnnl::algorithm alg =
        m_kind == Kind::Max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
    const memory::dims kernel{g.kernelH, g.kernelW}, strides{g.strideH, g.strideW}, dilation{0, 0};
    const memory::dims padL{g.padTop, g.padLeft}, padR{g.padBottom, g.padRight};
    dnnl::engine& engine = onednn::cpuEngine();
    const dnnl::pooling_v2_forward::primitive_desc fwd(
        {dnnl::prop_kind::forward_training, alg, src, dst, strides, kernel, dilation, padL, padR}, engine);
    const dnnl::pooling_v2_backward::primitive_desc bwd({alg, src, dst, strides, kernel, dilation, padL, padR},
                                                        engine, fwd);
    auto p = std::make_unique<Plan>();
    p->forward = dnnl::pooling_v2_forward(fwd);
    p->backward = dnnl::pooling_v2_backward(bwd);
    p->src = memory(src, engine, DNNL_MEMORY_NONE);
    p->dst = memory(dst, engine, DNNL_MEMORY_NONE);
    p->diffSrc = memory(src, engine, DNNL_MEMORY_NONE);
    p->diffDst = memory(dst, engine, DNNL_MEMORY_NONE);
    if (m_kind == Kind::Max)
        p->workspace = memory(fwd.workspace_desc(), engine);
    return p;
}

void OneDnnPooling::run(const Plan& p, const dnnl::primitive& primitive, std::unordered_map<int, memory> args) const
{
    if (m_kind == Kind::Max)
        args.emplace(DNNL_ARG_WORKSPACE, p.workspace);
    onednn::execute(primitive, args);
}

void OneDnnPooling::forward(int64_t batch, const float* x, float* y)
{
    Plan& p = plan(batch);
    p.src.set_data_handle(const_cast<float*>(x));
    p.dst.set_data_handle(y);
    run(p, p.forward, {{DNNL_ARG_SRC, p.src}, {DNNL_ARG_DST, p.dst}});
}

void OneDnnPooling::backward(int64_t batch, const float* dy, float* dx)
{
    Plan& p = plan(batch);
    p.diffDst.set_data_handle(const_cast<float*>(dy));
    p.diffSrc.set_data_handle(dx);
    run(p, p.backward, {{DNNL_ARG_DIFF_DST, p.diffDst}, {DNNL_ARG_DIFF_SRC, p.diffSrc}});
}

} // namespace strata::nn
