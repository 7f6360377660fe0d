#include "strata/core/rng.h"

#include <cmath>

namespace strata {

namespace {
uint64_t splitmix64(uint64_t& x)
{
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
__extension__ using u128 = unsigned __int128;

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
} // namespace

Rng::Rng(uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    for (uint64_t& s : m_s)
        s = splitmix64(x);
}

uint64_t Rng::next()
{
    const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t Rng::below(uint64_t n)
{
    // Lemire's multiply-shift with rejection: unbiased.
    u128 m = static_cast<u128>(next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
        const uint64_t threshold = -n % n;
        while (low < threshold) {
            m = static_cast<u128>(next()) * n;
            low = static_cast<uint64_t>(m);
        }
    }
    return static_cast<uint64_t>(m >> 64);
}

double Rng::normal()
{
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    double u = 0;
    while (u <= 0)
        u = uniform();
    const double v = uniform();
    const double r = std::sqrt(-2.0 * std::log(u));
    m_spare = r * std::sin(2.0 * M_PI * v);
    m_hasSpare = true;
    return r * std::cos(2.0 * M_PI * v);
}

double Rng::truncatedNormal()
{
    for (;;) {
        const double x = normal();
        if (std::fabs(x) <= 2.0)
            return x;
    }
}

} // namespace strata
