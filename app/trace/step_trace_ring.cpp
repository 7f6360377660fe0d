#include "app/trace/step_trace_ring.h"

#include <utility>

namespace strata::app {

void StepTraceRing::add(StepTrace&& trace)
{
    while (m_size > 0 && newest().step >= trace.step)
        --m_size;
    if (m_slots.empty())
        m_slots.resize(kKept);
    if (m_size == kKept) { // the oldest's slot takes the newest
        m_first = (m_first + 1) % kKept;
        --m_size;
    }
    m_slots[(m_first + m_size) % kKept] = std::move(trace);
    ++m_size;
}

} // namespace strata::app
