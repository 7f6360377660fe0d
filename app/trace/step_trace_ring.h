#pragma once
// A task's last step timelines (step_trace.h), as the MetricsStore keeps them for the Timeline
// panel: the newest kKept steps, oldest first, in a ring of slots reused as steps arrive, so
// that memory stays bounded (64 tasks x 64 steps) and a step costs a move, not an allocation
// of the ring. Not thread-safe: the store's lock guards it.

#include "app/trace/step_trace.h"

#include <cstddef>
#include <vector>

namespace strata::app {

class StepTraceRing {
public:
    static constexpr size_t kKept = 64;

    // The newest step's timeline. Kept ones at or after its step go first: a session resumed
    // from a checkpoint runs those steps again, later on the job's clock.
    void add(StepTrace&& trace);
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    // 0: the oldest kept.
    const StepTrace& at(size_t i) const { return m_slots[(m_first + i) % kKept]; }
    const StepTrace& newest() const { return at(m_size - 1); }

private:
    std::vector<StepTrace> m_slots; // kKept once the first step came
    size_t m_first = 0, m_size = 0;
};

} // namespace strata::app
