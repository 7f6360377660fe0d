#include "app/launch/backends/launch_backend.h"

#include <algorithm>

namespace strata::app {

bool LaunchBackend::canStart(const PlannedTask&, const QString&, QString*) const { return true; }

std::optional<QList<int>> LaunchBackend::checkedFreePorts(const QString&, int) const { return std::nullopt; }

FollowFrom LaunchBackend::followFrom(const LaunchTask& task) const
{
    return {std::max<qint64>(task.eventsOffset, 0), std::max<qint64>(task.stderrOffset, 0), -1};
}

} // namespace strata::app
