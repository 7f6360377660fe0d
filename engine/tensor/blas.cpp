#include "strata/tensor/blas.h"

#include <cblas.h>
#include <sched.h>

#include <string>

namespace strata::blas {

void gemm(Trans transA, Trans transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c)
{
    const int lda = static_cast<int>(transA == Trans::No ? k : m);
    const int ldb = static_cast<int>(transB == Trans::No ? n : k);
    cblas_sgemm(CblasRowMajor, transA == Trans::No ? CblasNoTrans : CblasTrans,
                transB == Trans::No ? CblasNoTrans : CblasTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), alpha, a, lda, b, ldb, beta, c, static_cast<int>(n));
}

int availableCores()
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    return 1;
}

void setThreads(int threads) { openblas_set_num_threads(threads > 0 ? threads : availableCores()); }

int threads() { return openblas_get_num_threads(); }

const char* description()
{
    static const std::string text = [] {
        std::string config = openblas_get_config();
        return "OpenBLAS " + config + " (" + openblas_get_corename() + ")";
    }();
    return text.c_str();
}

} // namespace strata::blas
