#include "ps/coordinator_watch.h"

#include "strata/distribute/communicator.h"

#include <algorithm>

namespace strata::ps {

CoordinatorWatch::CoordinatorWatch(const JobLayout& layout) : m_layout(layout) {}

void CoordinatorWatch::heard()
{
    m_heard = Clock::now();
    m_seen = true;
}

void CoordinatorWatch::check(const std::string& consequence) const
{
    const auto limit = m_seen ? std::max<Clock::duration>(std::chrono::seconds(10), m_layout.timeout * 5)
                              : Clock::duration(m_layout.startupTimeout);
    const auto silent = Clock::now() - m_heard;
    if (silent > limit)
        throw distribute::CollectiveError("chief:0 (the coordinator, " + m_layout.chief.address() + ") unheard for " +
                                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(silent).count()) +
                                    " s; " + consequence);
}

} // namespace strata::ps
