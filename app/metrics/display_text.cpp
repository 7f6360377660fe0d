#include "app/metrics/display_text.h"

#include <QDateTime>

namespace strata::app {

QString clockText(double seconds)
{
    const qint64 s = qint64(seconds + 0.5);
    const auto two = [](qint64 n) { return QStringLiteral("%1").arg(n, 2, 10, QChar('0')); };
    return s >= 3600 ? QStringLiteral("%1:%2:%3").arg(s / 3600).arg(two(s / 60 % 60), two(s % 60))
                     : QStringLiteral("%1:%2").arg(s / 60).arg(two(s % 60));
}

QString startedText(qint64 unixSeconds)
{
    return QDateTime::fromSecsSinceEpoch(unixSeconds).toString("yyyy-MM-dd HH:mm");
}

QString placeText(const QString& node, const QString& host)
{
    // A batch job's task has no host before the scheduler places it.
    return node.isEmpty() || node == host ? host : host.isEmpty() ? node : QStringLiteral("%1 (%2)").arg(node, host);
}

} // namespace strata::app
