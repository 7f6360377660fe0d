#pragma once
// oneDNN primitives run by the engine's layers: the CPU engine, a stream per thread, and the
// thread count a primitive runs on (the caller's blas::threads(), per thread like the GEMMs).

#include "strata/tensor/blas.h"

#include <dnnl.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

namespace strata::onednn {

dnnl::engine& cpuEngine();
// This thread's stream (a primitive executes on the calling thread's OpenMP team).
dnnl::stream& stream();

// Runs `primitive` with `args` on this thread's stream and waits for it.
void execute(const dnnl::primitive& primitive, const std::unordered_map<int, dnnl::memory>& args);

// A layer's primitives, built once per batch size and thread count and kept.
template <typename Plan>
class Plans {
public:
    // The plan for `batch` at the calling thread's count (which it sets for OpenMP), made by
    // make(batch) the first time.
    template <typename Make>
    Plan& get(int64_t batch, Make&& make)
    {
        blas::useConfiguredThreads();
        const auto key = std::make_pair(batch, blas::threads());
        auto it = m_plans.find(key);
        if (it == m_plans.end())
            it = m_plans.emplace(key, make(batch)).first;
        return *it->second;
    }

private:
    std::map<std::pair<int64_t, int>, std::unique_ptr<Plan>> m_plans;
};

} // namespace strata::onednn
