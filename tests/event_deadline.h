#pragma once
// The deadline of a test's wait for an event (a run ending, points drawn, a file growing, a
// process exiting): the wait ends as soon as the event comes, so only a hang (or a machine far
// slower than a loaded 2-core one) reaches it. A bound the product promises (stops within so
// many seconds of a kill) is measured and asserted on its own, not through a wait's deadline.

namespace testing {

constexpr int kEventDeadlineMs = 120000;

} // namespace testing
