#pragma once
// Parallel loops inside the engine use OpenMP: the same thread pool oneDNN's GEMMs use, so
// nothing oversubscribes the cores. Small loops stay on the calling thread, where a
// fork/join would cost more than the loop.

#include "strata/tensor/blas.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace strata::parallel {

// Below this many elementary operations a loop runs on one thread. Measured on 2 cores: a
// loop over data the calling thread has just written (gradients after its GEMMs) pays for
// moving that data between cores, so splitting Adam over the 100k-parameter MLP made a
// step slower (MLP@32: 165k samples/s at 2^18, 300k at 2^20), while the CNN's im2col,
// pooling and activations (millions of elements) still gain (2^22 cost the CNN 25%).
constexpr int64_t kMinWork = 1 << 20;

// From this many parameters on, a step on several threads gives each thread its share of
// every parameter to own: the optimizer updates the share there (Optimizer::apply), and Dense's
// small GEMMs compute its gradient and its part of the output there (nn/affine.cpp), so
// the parameters never move between cores. Measured on 2 cores of an AMD EPYC (Zen 4): the
// 100k-parameter MLP at batch 32 ran 196k samples/s on 1 thread; with its GEMMs on 2 threads
// but the update on one, 47-66k (the update read the other core's half of the gradient
// and weights every step: 36 us became 112).
constexpr int64_t kMinOwnedParameters = 1 << 14;

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

// Thread t's share of n items when `threads` threads own parts of them: [begin, end).
inline std::pair<int64_t, int64_t> share(int64_t n, int64_t t, int64_t threads)
{
    return {n * t / threads, n * (t + 1) / threads};
}

// Threads that own parts of `parameters` parameters (1: the calling thread does all).
inline int ownerThreads(int64_t parameters) { return parameters < kMinOwnedParameters ? 1 : blas::threads(); }

} // namespace strata::parallel
