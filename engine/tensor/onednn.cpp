#include "tensor/onednn.h"

namespace strata::onednn {

dnnl::engine& cpuEngine()
{
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

dnnl::stream& stream()
{
    thread_local dnnl::stream s(cpuEngine());
    return s;
}

void execute(const dnnl::primitive& primitive, const std::unordered_map<int, dnnl::memory>& args)
{
    dnnl::stream& s = stream();
    primitive.execute(s, args);
    s.wait();
}

} // namespace strata::onednn
