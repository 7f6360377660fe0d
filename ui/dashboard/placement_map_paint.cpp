// PlacementMapView painted: the caption, the boxes as laid out, the arrows of the gradients'
// path (routed around the hosts), the variables' bars.
#include "ui/dashboard/placement_map_view.h"

#include "app/metrics/placement_map_groups.h"
#include "ui/dashboard/placement_map_sizes.h"
#include "ui/shell/theme.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace strata::ui {

using namespace placement_map;

namespace {
// Black or white, whichever reads on `fill`.
QColor textOn(const QColor& fill) { return fill.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white); }

// The point of `r`'s border on the way to `towards`.
QPointF edgePoint(const QRectF& r, const QPointF& towards)
{
    const QPointF c = r.center();
    const QPointF d = towards - c;
    if (d.isNull())
        return c;
    const qreal sx = d.x() != 0 ? (r.width() / 2) / std::abs(d.x()) : 1e9;
    const qreal sy = d.y() != 0 ? (r.height() / 2) / std::abs(d.y()) : 1e9;
    return c + d * std::min(sx, sy);
}

// Whether `line` passes through `r`.
bool crosses(const QLineF& line, const QRectF& r)
{
    if (r.contains(line.p1()) || r.contains(line.p2()))
        return true;
    const QLineF edges[] = {{r.topLeft(), r.topRight()}, {r.topRight(), r.bottomRight()},
                            {r.bottomRight(), r.bottomLeft()}, {r.bottomLeft(), r.topLeft()}};
    return std::any_of(std::begin(edges), std::end(edges),
                       [&](const QLineF& e) { return line.intersects(e) == QLineF::BoundedIntersection; });
}

void arrowHead(QPainter& p, const QPointF& tip, const QPointF& from)
{
    const QPointF d = tip - from;
    const qreal length = std::hypot(d.x(), d.y());
    if (length <= 0)
        return;
    const QPointF u = d / length, n(-u.y(), u.x());
    p.save();
    p.setPen(Qt::NoPen);
    p.drawPolygon(QPolygonF{tip, tip - u * 8 + n * 4, tip - u * 8 - n * 4});
    p.restore();
}

// A chip of `fill` with `text` on it, cut to fit.
void chip(QPainter& p, const QRectF& r, const QColor& fill, const QString& text)
{
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawRect(r);
    p.setPen(textOn(fill));
    const QRectF inside = r.adjusted(4, 0, -4, 0);
    p.drawText(inside, Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(text, Qt::ElideRight, int(inside.width())));
}

void text(QPainter& p, const QRectF& r, const QString& s, Qt::Alignment align = Qt::AlignLeft)
{
    p.drawText(r, align | Qt::AlignVCenter, p.fontMetrics().elidedText(s, Qt::ElideRight, int(r.width())));
}

// The cards behind a group's box `r`, as a stack of them.
void cardsBehind(QPainter& p, const QRectF& r, const QPen& pen, const QBrush& fill, qreal radius)
{
    p.setPen(pen);
    p.setBrush(fill);
    for (const qreal offset : {kStack, kStack / 2})
        p.drawRoundedRect(r.translated(offset, offset), radius, radius);
}

// "busy 67%, memory 1.2 GB of 80.0 GB"; "no report yet" before the first.
QString usageText(const app::DeviceUsage& u)
{
    if (u.utilization < 0)
        return PlacementMapView::tr("no report yet");
    QString s = PlacementMapView::tr("busy %1%").arg(qRound(u.utilization * 100));
    if (u.memoryUsedBytes >= 0 && u.memoryTotalBytes > 0)
        s += PlacementMapView::tr(", memory %1 of %2").arg(bytes(u.memoryUsedBytes), bytes(u.memoryTotalBytes));
    return s;
}

// A group's: "busy 40-67%" (an en dash), "memory up to 1.2 GB of 80.0 GB".
QString usageText(const app::UsageSpan& u)
{
    if (u.mostBusy < 0)
        return PlacementMapView::tr("no report yet");
    const int least = qRound(u.leastBusy * 100), most = qRound(u.mostBusy * 100);
    QString s = least == most ? PlacementMapView::tr("busy %1%").arg(most)
                              : PlacementMapView::tr("busy %1\u2013%2%").arg(least).arg(most);
    if (u.mostMemoryUsed >= 0)
        s += PlacementMapView::tr(", memory up to %1 of %2").arg(bytes(u.mostMemoryUsed), bytes(u.memoryTotal));
    return s;
}
} // namespace

QPolygonF PlacementMapView::route(const QRectF& from, const QRectF& to) const
{
    const QPointF start = edgePoint(from, to.center()), end = edgePoint(to, from.center());
    const auto hostOf = [&](const QRectF& r) {
        const auto it = std::find_if(m_hostBoxes.begin(), m_hostBoxes.end(), [&](const QRectF& h) { return h.contains(r.center()); });
        return it == m_hostBoxes.end() ? r : *it;
    };
    const auto row = std::find_if(m_rows.begin(), m_rows.end(), [&](const QPair<qreal, qreal>& r) {
        return r.first <= from.center().y() && from.center().y() <= r.second;
    });
    const QRectF fromHost = hostOf(from), toHost = hostOf(to);
    const bool sideBySide = from.top() < to.bottom() && to.top() < from.bottom();
    const QLineF straight(start, end);
    if (row == m_rows.end() || fromHost == toHost ||
        (sideBySide && std::none_of(m_hostBoxes.begin(), m_hostBoxes.end(), [&](const QRectF& h) {
             return h != fromHost && h != toHost && crosses(straight, h);
         })))
        return {start, end};
    // As a circuit is drawn: out of the box's right side at its title into the lane right of its
    // host, along the lane under its row to the lane left of the other's host (when that is
    // another lane), and into the other's left side at its title.
    const qreal fromY = from.top() + std::min(kTitle, from.height()) / 2, toY = to.top() + std::min(kTitle, to.height()) / 2;
    const qreal right = fromHost.right() + kHostGap / 2, left = toHost.left() - kHostGap / 2;
    QPolygonF way{QPointF(from.right(), fromY), QPointF(right, fromY)};
    if (std::abs(right - left) > 1) {
        const qreal lane = row->second + kPad / 2;
        way << QPointF(right, lane) << QPointF(left, lane);
    }
    way << QPointF(left, toY) << QPointF(to.left(), toY);
    return way;
}

void PlacementMapView::paintMap(QPainter& p) const
{
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(font());
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    if (m_map.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRectF(QPointF(0, 0), QSizeF(sizeHint())), Qt::AlignCenter,
                   tr("The placement appears once the run reports it."));
        return;
    }
    // Caption: the strategy and its reduction, then what the arrows show.
    const qreal captionWidth = m_size.width() - kLeft - kMargin;
    p.setPen(ink);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRectF(kLeft, kMargin, captionWidth, m_captionHeight), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
               m_caption);
    p.setFont(font());
    p.drawText(QRectF(kLeft, kMargin + m_captionHeight, captionWidth, m_pathHeight),
               Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_map.path);

    for (const Shape& shape : m_shapes)
        paintShape(p, shape);
    paintArrows(p);
    paintVariables(p, m_variablesTop);
}

void PlacementMapView::paintShape(QPainter& p, const Shape& shape) const
{
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    const QRectF& r = shape.rect;
    const QRectF titleRow(r.left() + kPad, r.top(), r.width() - 2 * kPad, kTitle);
    switch (shape.kind) {
    case Shape::Kind::Host:
    case Shape::Kind::HostGroup: {
        const bool group = shape.kind == Shape::Kind::HostGroup;
        if (group)
            cardsBehind(p, r, QPen(ink, 1), pal.color(QPalette::AlternateBase), 6);
        p.setPen(QPen(ink, 1.5));
        p.setBrush(pal.color(QPalette::AlternateBase));
        p.drawRoundedRect(r, 6, 6);
        if (group)
            p.drawText(QRectF(titleRow.topLeft(), QSizeF(titleRow.width(), shape.titleHeight)),
                       Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, toggleTitle(shape.title, false));
        else
            text(p, titleRow, shape.title);
        if (group) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            text(p, QRectF(titleRow.left(), r.bottom() - kLine - 2, titleRow.width(), kLine),
                 tr("click to show each host"));
        }
        break;
    }
    case Shape::Kind::Frame:
        p.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(r, 8, 8);
        p.setPen(ink);
        text(p, titleRow, toggleTitle(shape.title, true));
        break;
    case Shape::Kind::Heading:
        p.setPen(ink);
        text(p, r, toggleTitle(shape.title, true));
        break;
    case Shape::Kind::Task:
    case Shape::Kind::TaskGroup:
        paintTask(p, shape);
        break;
    }
}

// A task's box (or a group's, showing its first): its name, what makes it stand out, a note
// on what it does when it holds no replica, its devices, and a ps task's shards.
void PlacementMapView::paintTask(QPainter& p, const Shape& shape) const
{
    const app::MapTask& t = *shape.task;
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    const QRectF& r = shape.rect;
    const bool group = shape.kind == Shape::Kind::TaskGroup;
    const QColor alert = t.failure ? theme::error(pal) : theme::warning(pal);
    const QPen border = !t.alert.isEmpty() ? QPen(alert, 2.5)
                        : t.place >= 0     ? QPen(placeColour(t.place, pal), 2.5)
                                           : QPen(ink, 1);
    if (group)
        cardsBehind(p, r, border, pal.color(QPalette::Base), 4);
    p.setPen(border);
    p.setBrush(pal.color(QPalette::Base));
    p.drawRoundedRect(r, 4, 4);
    p.setPen(ink);
    QString title = shape.opens ? toggleTitle(shape.title, false) : shape.title;
    if (t.role == QLatin1String("chief") && !m_map.psTasks.isEmpty())
        title += tr(" (coordinator)");
    const QRectF row(r.left() + kPad, r.top(), r.width() - 2 * kPad, kTitle);
    text(p, row, title);
    if (!t.alert.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(alert);
        text(p, row.translated(0, kTitle).adjusted(0, 0, 0, kLine - kTitle), t.alert);
        p.setFont(font());
    }
    if (hasNote(t)) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        text(p, QRectF(r.left() + kPad, r.top() + taskHead(t), r.width() - 2 * kPad, kLine),
             t.role == QLatin1String("evaluator") ? tr("evaluates the chief's checkpoints")
             : t.role == QLatin1String("chief") && !m_map.psTasks.isEmpty() ? tr("schedules the workers' steps")
                                                                           : tr("no placement reported"));
    }
    for (int i = 0; i < t.devices.size(); ++i)
        paintDevice(p, t.devices[i], i, shape);
    // A ps task's shards, each a chip in its colour.
    qreal y = r.bottom() - kLine * qreal(t.shards.size()) - kPad / 2;
    for (const app::MapShard& s : t.shards) {
        chip(p, QRectF(r.left() + kPad, y, r.width() - 2 * kPad, kLine - 2), placeColour(s.place, pal),
             QStringLiteral("%1  %2").arg(s.name, bytes(s.bytes)));
        y += kLine;
    }
}

// A device's box: its name, its replicas, the variables it holds and how busy it is (in a
// group: the first task's device, how busy the least and most busy of the group's are).
void PlacementMapView::paintDevice(QPainter& p, const app::MapDevice& d, int index, const Shape& shape) const
{
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    const bool group = shape.kind == Shape::Kind::TaskGroup;
    QFont bold = font();
    bold.setBold(true);
    const QRectF dr = m_boxes.value(d.id);
    p.setPen(QPen(ink, 1));
    p.setBrush(pal.color(QPalette::Button));
    p.drawRect(dr);
    qreal y = dr.top();
    p.setPen(pal.color(QPalette::ButtonText));
    p.setFont(bold);
    // A group's tasks may each have another GPU of the node: the device's name, not its GPU.
    text(p, QRectF(dr.left() + 4, y, dr.width() - 8, kTitle), group || d.label.isEmpty() ? d.name : d.label);
    p.setFont(font());
    y += kTitle;
    for (const QString& replica : d.replicas) {
        text(p, QRectF(dr.left() + 4, y, dr.width() - 8, kLine), replica);
        y += kLine;
    }
    if (d.place >= 0) {
        QString held = d.variables == 1 ? tr("1 variable, %1").arg(bytes(d.variableBytes))
                                        : tr("%1 variables, %2").arg(d.variables).arg(bytes(d.variableBytes));
        if (group)
            held = tr("%1 on each").arg(held);
        chip(p, QRectF(dr.left() + 3, y + 1, dr.width() - 6, kLine - 2), placeColour(m_manyCopies ? -1 : d.place, pal),
             held);
        y += kLine;
    }
    if (hasUsageRow(d)) {
        // How busy, as a bar behind the figures: a group's most busy faint, its least busy strong.
        const QRectF row(dr.left() + 3, y + 1, dr.width() - 6, kLine - 2);
        const app::UsageSpan span = group ? app::usageSpan(m_map, shape.tasks, index) : app::UsageSpan{};
        const double least = group ? span.leastBusy : d.usage.utilization;
        const auto bar = [&](double busy, int alpha) {
            QColor fill = pal.color(QPalette::Highlight);
            fill.setAlpha(alpha);
            if (busy > 0)
                p.fillRect(QRectF(row.topLeft(), QSizeF(row.width() * std::min(busy, 1.0), row.height())), fill);
        };
        if (group)
            bar(span.mostBusy, 50);
        bar(least, 90);
        p.setPen(pal.color(QPalette::ButtonText));
        text(p, row.adjusted(2, 0, -2, 0), group ? usageText(span) : usageText(d.usage));
    }
}

void PlacementMapView::paintArrows(QPainter& p) const
{
    QColor path = palette().color(QPalette::Highlight);
    path.setAlpha(200);
    p.setBrush(path);
    // An arrow to or from a task in a closed group goes to the group; one inside it is not
    // drawn, and many the same way between two boxes are drawn once.
    QSet<QString> drawn;
    for (const app::MapArrow& a : m_map.arrows) {
        const QString fromId = shownIn(a.from), toId = shownIn(a.to);
        const bool back = a.kind == app::MapArrow::Kind::Back;
        if (fromId.isEmpty() || toId.isEmpty() || fromId == toId)
            continue;
        const QString key = fromId + (back ? QStringLiteral(" => ") : QStringLiteral(" -> ")) + toId;
        if (drawn.contains(key))
            continue;
        drawn.insert(key);
        const QRectF from = m_boxes.value(fromId), to = m_boxes.value(toId);
        p.setPen(QPen(path, back ? 1.2 : 1.6, back ? Qt::DashLine : Qt::SolidLine));
        const bool stacked = from.left() < to.right() && to.left() < from.right(); // one above the other
        if (stacked) {
            // Downwards along the right edges, upwards along the left ones: a ring reads as a
            // loop and the two ways between two boxes never overlap.
            const bool down = to.center().y() > from.center().y();
            const qreal side = down ? 1 : -1;
            const QPointF start(down ? from.right() : from.left(), from.center().y());
            const QPointF end(down ? to.right() : to.left(), to.center().y());
            // Devices are close together inside their task; tasks have the host's gap.
            const bool devices = fromId.contains('/');
            const qreal bulge = std::min(devices ? 20.0 : 34.0, 10 + std::abs(end.y() - start.y()) / 8);
            QPainterPath curve(start);
            const QPointF c1 = start + QPointF(side * bulge, 0), c2 = end + QPointF(side * bulge, 0);
            curve.cubicTo(c1, c2, end);
            p.save();
            p.setBrush(Qt::NoBrush);
            p.drawPath(curve);
            p.restore();
            arrowHead(p, end, c2);
            continue;
        }
        QPolygonF way = route(from, to);
        if (way.size() > 2) {
            // Around the hosts in between; what comes back a little aside.
            if (back)
                way.translate(3, 3);
            p.save();
            p.setBrush(Qt::NoBrush);
            p.drawPolyline(way);
            p.restore();
            arrowHead(p, way.last(), way[way.size() - 2]);
        } else {
            // Side by side: straight, each way shifted to its own right.
            QPointF start = way.first(), end = way.last();
            const QPointF d = end - start;
            const qreal length = std::hypot(d.x(), d.y());
            if (length > 0) {
                const QPointF shift = QPointF(-d.y(), d.x()) / length * 3;
                start += shift;
                end += shift;
            }
            p.drawLine(start, end);
            arrowHead(p, end, start);
        }
    }
}

void PlacementMapView::paintVariables(QPainter& p, qreal y) const
{
    if (m_map.variables.isEmpty())
        return;
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    p.setPen(ink);
    text(p, QRectF(kLeft, y, m_size.width() - kLeft - kMargin, kTitle),
         !m_map.psTasks.isEmpty() ? tr("Variables and their shards, each in the colour of the ps task holding it")
         : m_manyCopies           ? tr("Variables and their copies")
                                  : tr("Variables and their copies, each in the colour of the device holding it"));
    y += kTitle;
    // Copies are named by device, with their task when several tasks hold them.
    QStringList owners;
    for (const QString& place : m_map.places)
        owners << place.section('/', 0, 0);
    owners.removeDuplicates();
    for (const app::MapVariable& v : m_map.variables) {
        p.setPen(ink);
        text(p, QRectF(kLeft, y, kVariableName - 8, kVariableRow - 2), QStringLiteral("%1 %2").arg(v.name, v.shape));
        const QRectF bar(kLeft + kVariableName, y + 2, kBarWidth, kVariableRow - 6);
        if (v.pieces.isEmpty()) {
            chip(p, bar, placeColour(-1, pal), tr("%1, placed nowhere known").arg(bytes(v.bytes)));
        } else if (v.copies && v.pieces.size() > kCopiesTold) {
            chip(p, bar, placeColour(-1, pal),
                 tr("%1 copies of %2, one on each device holding the variables").arg(v.pieces.size()).arg(bytes(v.bytes)));
        } else {
            qint64 total = 0;
            for (const app::MapShard& s : v.pieces)
                total += s.bytes;
            qreal x = bar.left();
            for (const app::MapShard& s : v.pieces) {
                const qreal w = v.copies || total <= 0 ? bar.width() / qreal(v.pieces.size())
                                                       : bar.width() * qreal(s.bytes) / qreal(total);
                const QString where = m_map.places.value(s.place);
                const QString label = v.copies ? (owners.size() > 1 ? where : where.section('/', 1))
                                               : QStringLiteral("%1 %2").arg(where, bytes(s.bytes));
                chip(p, QRectF(x, bar.top(), w - 1, bar.height()), placeColour(s.place, pal),
                     v.copies && v.pieces.size() == 1 ? QStringLiteral("%1 on %2").arg(bytes(v.bytes), label) : label);
                x += w;
            }
        }
        y += kVariableRow;
    }
}

} // namespace strata::ui
