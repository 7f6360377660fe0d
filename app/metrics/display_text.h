#pragma once
// Small text formats shared by the console (`strata run`, `strata runs`) and the models.

#include <QString>

namespace strata::app {

// "m:ss", or "h:mm:ss" from an hour on (rounded to the second).
QString clockText(double seconds);
// A run's start as the history lists it: "yyyy-MM-dd HH:mm", local time.
QString startedText(qint64 unixSeconds);
// Where a task runs: "b (198.18.1.2)", or the host alone when the node is named after it.
QString placeText(const QString& node, const QString& host);

} // namespace strata::app
