#include "strata/tensor/denormals.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace strata {

void flushDenormalsToZero()
{
#if defined(__x86_64__) || defined(__i386__)
    // FTZ (bit 15): subnormal results become zero; DAZ (bit 6): subnormal inputs read as zero.
    _mm_setcsr(_mm_getcsr() | 0x8040);
#endif
}

} // namespace strata
