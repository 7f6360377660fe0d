#pragma once
// SpanRecorder: what a task did when, for the step timeline (docs/timeline.md): named spans on
// a few lanes, on the steady clock, gathered between two step records and then taken by the
// report room (strata/report/step_trace.h), which writes them as a step record's `trace`.
//
// Cheap by design: spans go into storage reserved at construction (no allocation per span;
// past the capacity further spans of the step are dropped and counted), names are static
// strings plus an optional index ("bucket" 3). A null SpanRecorder* means no recording: every
// hook (SpanScope) then does nothing but test the pointer.
//
// Threads: each lane is written by one thread at a time (the step lane by the training loop's
// thread, the reduce lane by ProcessGroup's queue thread or replica 0's thread, the ps lane by
// a ParameterServer worker's loop); spans of one lane nest as that thread's scopes do. A
// lane's lock makes adding and taking safe from any thread.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace strata {

enum class TraceLane : uint8_t { Step, Reduce, Ps };
inline constexpr size_t kTraceLanes = 3;
// The lane's name in a step record ("step", "reduce", "ps").
const char* traceLaneName(TraceLane lane);

class SpanRecorder {
public:
    using Clock = std::chrono::steady_clock;
    struct Span {
        const char* name = ""; // a static string
        int32_t index = -1;    // >= 0: written after the name ("bucket 3")
        Clock::time_point begin, end;
    };

    explicit SpanRecorder(size_t capacityPerLane = 512);

    void add(TraceLane lane, const char* name, Clock::time_point begin, Clock::time_point end, int32_t index = -1);
    // Moves the lane's spans into `into` (cleared first; its capacity kept) and empties the
    // lane; returns how many spans were dropped since the last take (the lane was full).
    size_t take(TraceLane lane, std::vector<Span>& into);

private:
    struct Lane {
        std::mutex mutex;
        std::vector<Span> spans;
        size_t dropped = 0;
    };
    size_t m_capacity;
    std::array<Lane, kTraceLanes> m_lanes;
};

// A span from construction to destruction (or to end()); nothing when `recorder` is null.
class SpanScope {
public:
    SpanScope(SpanRecorder* recorder, TraceLane lane, const char* name, int32_t index = -1)
        : m_recorder(recorder), m_lane(lane), m_name(name), m_index(index)
    {
        if (m_recorder)
            m_begin = SpanRecorder::Clock::now();
    }
    ~SpanScope() { end(); }
    SpanScope(const SpanScope&) = delete;
    SpanScope& operator=(const SpanScope&) = delete;

    void end()
    {
        if (!m_recorder)
            return;
        m_recorder->add(m_lane, m_name, m_begin, SpanRecorder::Clock::now(), m_index);
        m_recorder = nullptr;
    }

private:
    SpanRecorder* m_recorder;
    TraceLane m_lane;
    const char* m_name;
    int32_t m_index;
    SpanRecorder::Clock::time_point m_begin;
};

} // namespace strata
