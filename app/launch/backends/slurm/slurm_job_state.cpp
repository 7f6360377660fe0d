#include "app/launch/backends/slurm/slurm_job_state.h"

#include <QRegularExpression>
#include <QStringList>

namespace strata::app {

bool SlurmJobState::waiting() const
{
    static const QStringList kWaiting{"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "CONFIGURING", "RESV_DEL_HOLD",
                                      "SPECIAL_EXIT", "SUSPENDED"};
    return kWaiting.contains(state);
}

bool SlurmJobState::over() const
{
    static const QStringList kOver{"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                                   "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "REVOKED"};
    return kOver.contains(state);
}

QString SlurmJobState::waitingText() const
{
    const QString name = state.toLower();
    return reason.isEmpty() || reason == QLatin1String("None") ? name : QStringLiteral("%1 (%2)").arg(name, reason);
}

std::optional<SlurmJobState> parseJobState(const QString& line)
{
    // Key=Value pairs separated by spaces; the values read here hold no spaces.
    static const QRegularExpression pair(QStringLiteral("(?:^|\\s)([A-Za-z/]+)=(\\S*)"));
    SlurmJobState s;
    bool found = false;
    for (auto it = pair.globalMatch(line); it.hasNext();) {
        const auto m = it.next();
        const QString key = m.captured(1), value = m.captured(2);
        if (key == QLatin1String("JobState")) {
            s.state = value;
            found = true;
        } else if (key == QLatin1String("Reason")) {
            s.reason = value;
        } else if (key == QLatin1String("NodeList")) {
            s.nodes = value == QLatin1String("(null)") ? QString() : value;
        } else if (key == QLatin1String("Restarts")) {
            s.restarts = value.toInt();
        } else if (key == QLatin1String("ExitCode")) {
            s.exitCode = value;
        }
    }
    if (!found)
        return std::nullopt;
    return s;
}

} // namespace strata::app
