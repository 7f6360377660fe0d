#pragma once
// Parallel loops inside the engine use OpenMP: the same thread pool oneDNN's GEMMs use, so
// nothing oversubscribes the cores. Small loops stay on the calling thread, where a
// fork/join would cost more than the loop.

#include "strata/tensor/blas.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace strata::parallel {

// Below this many elementary operations a loop runs on one thread. Measured on 2 cores: a
// loop over data the calling thread has just written (gradients after its GEMMs) pays for
// moving that data between cores, so splitting Adam over the 100k-parameter MLP made a
// step slower (MLP@32: 165k samples/s at 2^18, 300k at 2^20), while the CNN's im2col,
// pooling and activations (millions of elements) still gain (2^22 cost the CNN 25%).
constexpr int64_t kMinWork = 1 << 20;

// Threads for a loop doing `work` elementary operations.
inline int threadsFor(int64_t work) { return work < kMinWork ? 1 : blas::threads(); }

// Calls f(begin, end) on contiguous parts of [0, n), one per thread, when the n items'
// work (workPerItem each) is worth it; otherwise f(0, n) on the calling thread.
template <typename F>
void forRanges(int64_t n, int64_t workPerItem, F&& f)
{
    const int threads = static_cast<int>(std::min<int64_t>(threadsFor(n * workPerItem), n));
    if (threads <= 1) {
        f(int64_t{0}, n);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        const int64_t t = omp_get_thread_num();
        const int64_t count = omp_get_num_threads();
        f(n * t / count, n * (t + 1) / count);
    }
}

} // namespace strata::parallel
