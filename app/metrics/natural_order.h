#pragma once
// Names in the order a person counts them: a run of digits compares as the number it writes,
// so "worker:2" comes before "worker:10" and "node-9" before "node-16"; the rest compares
// case-insensitively, then exactly (so that distinct names never tie).

#include <QStringView>

namespace strata::app {

// < 0, 0 or > 0 as `a` comes before, with or after `b`.
int naturalCompare(QStringView a, QStringView b);

} // namespace strata::app
