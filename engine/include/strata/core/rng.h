#pragma once
// Deterministic random numbers (xoshiro256**, seeded through splitmix64). The sequence is
// fixed by this code, not by the standard library, so a seed means the same run everywhere.

#include <cstdint>

namespace strata {

class Rng {
public:
    explicit Rng(uint64_t seed = 0, uint64_t stream = 0);

    uint64_t next();
    // Uniform in [0, 1).
    double uniform();
    // Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    // Uniform integer in [0, n).
    uint64_t below(uint64_t n);
    // Standard normal (Box-Muller).
    double normal();
    // Normal truncated at two standard deviations, as Keras' truncated_normal.
    double truncatedNormal();

private:
    uint64_t m_s[4];
    double m_spare = 0;
    bool m_hasSpare = false;
};

} // namespace strata
