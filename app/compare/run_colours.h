#pragma once
// One colour per run, the same on every plot, bar, table and chip of a comparison and
// whatever the run's place in its list: a run is keyed by its history id, else (a run
// directory compared without a history) by its directory's path, and the keys are given
// palette slots. Each key wants slot key % slotCount; in the order of the keys (not of the list)
// each takes the first free slot from the one it wants, so runs compared together never
// share a colour while there are enough slots, consecutive history ids (a sweep's runs) take
// consecutive colours, and reordering the runs changes nothing.
//
// Pure functions; any thread.

#include <QString>

#include <vector>

namespace strata::app {

// The colours of ui::theme::series (Tableau's ten).
inline constexpr int kRunColourSlots = 10;

// A run's key: its history id when it has one (> 0), else a hash of its directory's clean
// absolute path that is the same in every session (FNV-1a, not qHash's per-process seed).
quint64 runColourKey(qint64 historyId, const QString& runDir);

// A slot in [0, slotCount) for each key, in the keys' order. More runs than slots: the later
// keys share the slots they want.
std::vector<int> runColourSlots(const std::vector<quint64>& keys, int slotCount = kRunColourSlots);

} // namespace strata::app
