#include "app/compare/run_colours.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <numeric>

namespace strata::app {

quint64 runColourKey(qint64 historyId, const QString& runDir)
{
    if (historyId > 0)
        return quint64(historyId);
    quint64 hash = 14695981039346656037ull;
    for (const char byte : QDir::cleanPath(QFileInfo(runDir).absoluteFilePath()).toUtf8()) {
        hash ^= quint64(uchar(byte));
        hash *= 1099511628211ull;
    }
    return hash;
}

std::vector<int> runColourSlots(const std::vector<quint64>& keys, int slotCount)
{
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    std::vector<int> out(keys.size());
    std::vector<bool> taken(size_t(slotCount), false);
    int free = slotCount;
    for (const size_t run : order) {
        int slot = int(keys[run] % quint64(slotCount));
        if (free > 0) {
            while (taken[size_t(slot)])
                slot = (slot + 1) % slotCount;
            taken[size_t(slot)] = true;
            --free;
        }
        out[run] = slot;
    }
    return out;
}

} // namespace strata::app
