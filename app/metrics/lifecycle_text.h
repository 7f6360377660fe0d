#pragma once
// The log line of a lifecycle event (hello, start, epoch, checkpoint, evaluation, done), so that
// the run's log tells its story, not only its problems.

#include "app/metrics/event_parse.h"

#include <QString>

#include <string_view>

namespace strata::app {

// Empty for an event of another type.
QString lifecycleText(std::string_view type, const Json& event);

} // namespace strata::app
