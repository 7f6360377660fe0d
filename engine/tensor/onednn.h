#pragma once
// oneDNN primitives run by the engine's layers: the CPU engine, a stream per thread, and the
// thread count a primitive runs on (the caller's blas::threads(), per thread like the GEMMs).

#include <dnnl.hpp>

namespace strata::onednn {

dnnl::engine& cpuEngine();
// This thread's stream (a primitive executes on the calling thread's OpenMP team).
dnnl::stream& stream();
// Tells OpenMP, for this thread, the team size blas::threads() asks for. A primitive is
// created and run under the same count: oneDNN splits its work by the count it saw at creation.
void useConfiguredThreads();

} // namespace strata::onednn
