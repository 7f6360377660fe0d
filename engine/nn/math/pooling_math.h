#pragma once
// Window arithmetic of average pooling, shared by the CPU loops (nn/average_pooling2d.cpp)
// and the CUDA kernels (cuda/pooling_kernels.cu). One axis at a time: TF's windows start at
// o * stride - padBefore and hold `window` positions, of which those inside [0, size) count.

#include "strata/core/hd.h"

#include <cstdint>

namespace strata::nn::math {

struct Span {
    int64_t begin = 0, end = 0; // [begin, end)
};

// The input positions of output `o`'s window that lie inside the input.
STRATA_HD inline Span windowSpan(int64_t o, int64_t stride, int64_t padBefore, int64_t window, int64_t size)
{
    const int64_t begin = o * stride - padBefore;
    const int64_t end = begin + window;
    return {begin < 0 ? 0 : begin, end > size ? size : end};
}

// The outputs whose windows hold input position `i` (the adjoint of windowSpan).
STRATA_HD inline Span outputSpan(int64_t i, int64_t stride, int64_t padBefore, int64_t window, int64_t outSize)
{
    const int64_t last = (i + padBefore) / stride; // i + padBefore >= 0
    const int64_t first = i + padBefore - window + 1 <= 0 ? 0 : (i + padBefore - window + stride) / stride;
    return {first, last + 1 > outSize ? outSize : last + 1};
}

} // namespace strata::nn::math
