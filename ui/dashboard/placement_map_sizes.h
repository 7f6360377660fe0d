#pragma once
// PlacementMapView's measures, shared by its layout (placement_map_view.cpp) and its painting
// (placement_map_paint.cpp): the room each box takes.

#include "app/metrics/placement_map.h"

#include <QLocale>
#include <QString>

namespace strata::ui::placement_map {

inline constexpr qreal kMargin = 12;
inline constexpr qreal kLeft = 44;        // room for the arrows that bulge out to the left of the first host
inline constexpr qreal kPad = 8;
inline constexpr qreal kTitle = 20;       // a box's title row
inline constexpr qreal kLine = 16;        // a replica's, shard's or figure's row
inline constexpr qreal kCaption = 18;     // each of the two caption lines
inline constexpr qreal kTaskWidth = 250;
inline constexpr qreal kHostWidth = kTaskWidth + 2 * kPad;
inline constexpr qreal kDeviceInset = 26; // room inside a task for the arrows between its devices
inline constexpr qreal kHostGap = 84;     // room for the arrows of two hosts side by side
inline constexpr qreal kRowGap = 40;      // between rows of hosts, for the arrows between them
inline constexpr int kHostsPerRow = 4;
inline constexpr qreal kStack = 6;        // the cards showing behind a group's box
inline constexpr int kCopiesTold = 8;     // more copies of a variable than this: told in words, not colours
inline constexpr qreal kVariableRow = 20;
inline constexpr qreal kVariableName = 200;
inline constexpr qreal kBarWidth = 420;

inline QString bytes(qint64 n) { return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat); }

inline bool hasUsageRow(const app::MapDevice& d) { return !d.replicas.isEmpty(); }

inline qreal deviceHeight(const app::MapDevice& d)
{
    return kTitle + kLine * qreal(d.replicas.size() + (d.place >= 0 ? 1 : 0) + (hasUsageRow(d) ? 1 : 0)) + 2;
}

// A task with nothing inside still says what it does.
inline bool hasNote(const app::MapTask& t) { return t.devices.isEmpty() && t.shards.isEmpty(); }

// Its title, and what makes it stand out beneath.
inline qreal taskHead(const app::MapTask& t) { return kTitle + (t.alert.isEmpty() ? 0 : kLine); }

inline qreal taskHeight(const app::MapTask& t)
{
    qreal h = taskHead(t);
    for (const app::MapDevice& d : t.devices)
        h += deviceHeight(d) + kPad / 2;
    return h + kLine * qreal(t.shards.size() + (hasNote(t) ? 1 : 0)) + kPad / 2;
}

// A group's title with the mark of what a click does: open it, or close it.
inline QString toggleTitle(const QString& title, bool open)
{
    return QString(QChar(open ? 0x25BE : 0x25B8)) + QLatin1Char(' ') + title;
}

} // namespace strata::ui::placement_map
