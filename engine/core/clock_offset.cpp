#include "strata/core/clock_offset.h"

namespace strata {

int64_t systemMicroseconds()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void ClockOffset::add(int64_t sentUs, int64_t peerUs, int64_t receivedUs)
{
    if (receivedUs < sentUs)
        return; // this clock stepped back during the exchange: no sample
    // The midpoint without overflow: sent + (received - sent) / 2.
    m_samples[m_next] = {peerUs - (sentUs + (receivedUs - sentUs) / 2), receivedUs - sentUs};
    m_next = (m_next + 1) % kSamples;
    const Sample* best = nullptr;
    for (const Sample& s : m_samples)
        if (s.roundTrip >= 0 && (!best || s.roundTrip < best->roundTrip))
            best = &s;
    m_offset.store(best->offset, std::memory_order_relaxed);
    m_roundTrip.store(best->roundTrip, std::memory_order_relaxed);
}

} // namespace strata
