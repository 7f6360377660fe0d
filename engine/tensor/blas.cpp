#include "strata/tensor/blas.h"

#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <sched.h>

#include <string>

namespace strata::blas {

namespace {

// Threads the caller asked for (0: one per core).
thread_local int t_threads = 0;
// What oneDNN's OpenMP runtime was last told on this thread.
thread_local int t_ompThreads = -1;

// Below this size a GEMM runs on one thread: measured on 2 cores, the OpenMP fork/join of a
// 32x784x128 product costs more than it saves (215 GFLOP/s on 1 thread, 72 on 2), while
// products from ~100 MFLOP scale (conv 10816x64x288: 205 -> 399).
constexpr double kParallelMinFlops = 64e6;

void useOmpThreads(int n)
{
    if (n != t_ompThreads) {
        omp_set_num_threads(n);
        t_ompThreads = n;
    }
}

const char* isaName(dnnl_cpu_isa_t isa)
{
    switch (isa) {
    case dnnl_cpu_isa_sse41: return "SSE4.1";
    case dnnl_cpu_isa_avx: return "AVX";
    case dnnl_cpu_isa_avx2: return "AVX2";
    case dnnl_cpu_isa_avx512_core: return "AVX-512";
    case dnnl_cpu_isa_avx512_core_vnni: return "AVX-512 VNNI";
    case dnnl_cpu_isa_avx512_core_bf16: return "AVX-512 BF16";
    case dnnl_cpu_isa_avx512_core_amx: return "AVX-512 AMX";
    default: return "generic";
    }
}

} // namespace

void gemm(Trans transA, Trans transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c)
{
    gemm(transA, transB, m, n, k, alpha, a, transA == Trans::No ? k : m, b, transB == Trans::No ? n : k, beta, c, n);
}

void gemm(Trans transA, Trans transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc)
{
    const int configured = threads();
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    useOmpThreads(flops < kParallelMinFlops ? 1 : configured);
    // dnnl_sgemm is row-major.
    dnnl_sgemm(transA == Trans::No ? 'N' : 'T', transB == Trans::No ? 'N' : 'T', m, n, k, alpha, a, lda, b, ldb, beta,
               c, ldc);
}

int availableCores()
{
    static const int cores = [] {
        cpu_set_t set;
        return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    }();
    return cores;
}

void setThreads(int threads) { t_threads = threads > 0 ? threads : availableCores(); }

int threads() { return t_threads > 0 ? t_threads : availableCores(); }

void useConfiguredThreads() { useOmpThreads(threads()); }

const char* description()
{
    static const std::string text = [] {
        const dnnl_version_t* v = dnnl_version();
        return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
               std::to_string(v->patch) + " sgemm (" + isaName(dnnl_get_effective_cpu_isa()) + ", OpenMP)";
    }();
    return text.c_str();
}

} // namespace strata::blas
