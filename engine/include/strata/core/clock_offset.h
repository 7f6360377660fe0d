#pragma once
// ClockOffset: how far another task's clock is from this one's, estimated NTP-style from
// request/reply exchanges: for each, this task's send and receive times and the peer's time in
// its reply; the peer read its clock at about the midpoint, so
//   offset = peer - (sent + received) / 2,   uncertain by half the round trip.
// The estimate is the sample of the shortest round trip among the last kSamples (a reply held
// up by a busy peer or network counts for nothing); refreshed samples (heartbeats) let it
// follow a drifting clock.
//
// Threads: add() from one thread (the exchanges'), offsetUs() from any.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace strata {

// This process's system clock, unix microseconds.
int64_t systemMicroseconds();

class ClockOffset {
public:
    static constexpr size_t kSamples = 8;

    // One exchange: sent and received on this task's clock, `peer` on the other's (µs).
    void add(int64_t sentUs, int64_t peerUs, int64_t receivedUs);
    // Microseconds to add to this task's clock to read the peer's; 0 before any sample.
    int64_t offsetUs() const { return m_offset.load(std::memory_order_relaxed); }
    // The round trip of the sample the estimate comes from; -1 before any sample.
    int64_t roundTripUs() const { return m_roundTrip.load(std::memory_order_relaxed); }

private:
    struct Sample {
        int64_t offset = 0, roundTrip = -1;
    };
    std::array<Sample, kSamples> m_samples{};
    size_t m_next = 0;
    std::atomic<int64_t> m_offset{0};
    std::atomic<int64_t> m_roundTrip{-1};
};

} // namespace strata
