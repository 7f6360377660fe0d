#include "ui/dashboard/placement_map_view.h"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace strata::ui {

namespace {
constexpr qreal kMargin = 12;
constexpr qreal kPad = 8;
constexpr qreal kTitle = 20;     // a box's title row
constexpr qreal kLine = 15;      // a replica's or shard's row
constexpr qreal kTaskWidth = 210;
constexpr qreal kHostGap = 40;   // room for the arrows between hosts
constexpr qreal kCaption = 24;   // the strategy and its reduction, above the hosts
constexpr qreal kVariableRow = 20;
constexpr qreal kVariableName = 190;
constexpr qreal kBarWidth = 360;

QString bytes(qint64 n) { return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat); }

qreal deviceHeight(const app::MapDevice& d) { return kTitle + kLine * qreal(d.replicas.size() + (d.holdsVariables ? 1 : 0)); }

qreal taskHeight(const app::MapTask& t)
{
    qreal h = kTitle + kPad;
    for (const app::MapDevice& d : t.devices)
        h += deviceHeight(d) + kPad / 2;
    return h + kLine * qreal(t.shards.size());
}

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

void arrowHead(QPainter& p, const QPointF& tip, const QPointF& from)
{
    const QPointF d = tip - from;
    const qreal length = std::hypot(d.x(), d.y());
    if (length <= 0)
        return;
    const QPointF u = d / length, n(-u.y(), u.x());
    const QPolygonF head{tip, tip - u * 8 + n * 4, tip - u * 8 - n * 4};
    p.drawPolygon(head);
}
} // namespace

PlacementMapView::PlacementMapView(QWidget* parent) : QWidget(parent)
{
    setObjectName("placementMap");
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

QColor PlacementMapView::psColour(int index)
{
    static const QColor colours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                     QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                     QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};
    if (index < 0)
        return QColor(0xb0, 0xb0, 0xb0);
    return colours[index % int(std::size(colours))];
}

void PlacementMapView::setMap(const app::PlacementMap& map)
{
    m_map = map;
    layoutMap();
    updateGeometry();
    update();
}

void PlacementMapView::layoutMap()
{
    m_boxes.clear();
    qreal x = kMargin, bottom = kMargin + kCaption;
    for (const app::MapHost& host : m_map.hosts) {
        qreal y = kMargin + kCaption + kTitle;
        for (const app::MapTask& t : host.tasks) {
            const QRectF task(x + kPad, y, kTaskWidth, taskHeight(t));
            m_boxes.insert(t.id, task);
            qreal dy = task.top() + kTitle;
            for (const app::MapDevice& d : t.devices) {
                m_boxes.insert(d.id, QRectF(task.left() + kPad, dy, task.width() - 2 * kPad, deviceHeight(d)));
                dy += deviceHeight(d) + kPad / 2;
            }
            y = task.bottom() + kPad;
        }
        const QRectF box(x, kMargin + kCaption, kTaskWidth + 2 * kPad, y - (kMargin + kCaption));
        m_boxes.insert(host.place, box);
        bottom = std::max(bottom, box.bottom());
        x = box.right() + kHostGap;
    }
    const qreal width = std::max(x - kHostGap + kMargin, kMargin * 2 + kVariableName + kBarWidth);
    const qreal variables = m_map.variables.isEmpty() ? 0 : kTitle + kVariableRow * qreal(m_map.variables.size());
    m_size = QSizeF(width, bottom + kPad + variables + kMargin);
}

QSize PlacementMapView::sizeHint() const
{
    return m_map.empty() ? QSize(320, 80) : m_size.toSize();
}

void PlacementMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    if (m_map.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("The placement appears once the run reports it."));
        return;
    }
    // Caption: the strategy, the gradients' path and the ps colours.
    p.setPen(text);
    QString caption = m_map.strategy;
    if (!m_map.reduction.isEmpty())
        caption += tr(": %1, %2 per step").arg(m_map.reduction, bytes(m_map.reductionBytes));
    p.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, kCaption), Qt::AlignLeft | Qt::AlignVCenter, caption);

    for (const app::MapHost& host : m_map.hosts) {
        const QRectF h = m_boxes.value(host.place);
        p.setPen(QPen(text, 1.5));
        p.setBrush(pal.color(QPalette::AlternateBase));
        p.drawRoundedRect(h, 6, 6);
        p.drawText(QRectF(h.left() + kPad, h.top(), h.width() - 2 * kPad, kTitle), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("host %1").arg(host.place));
        for (const app::MapTask& t : host.tasks) {
            const QRectF r = m_boxes.value(t.id);
            const QColor edge = t.ps >= 0 ? psColour(t.ps) : text;
            p.setPen(QPen(edge, t.ps >= 0 ? 2.5 : 1));
            p.setBrush(pal.color(QPalette::Base));
            p.drawRoundedRect(r, 4, 4);
            p.setPen(text);
            const QString role = t.role == QLatin1String("chief") && !m_map.psTasks.isEmpty() ? tr(" (coordinator)")
                                                                                               : QString();
            p.drawText(QRectF(r.left() + kPad, r.top(), r.width() - 2 * kPad, kTitle), Qt::AlignLeft | Qt::AlignVCenter,
                       t.id + role);
            for (const app::MapDevice& d : t.devices) {
                const QRectF dr = m_boxes.value(d.id);
                p.setPen(text);
                p.setBrush(pal.color(QPalette::Button));
                p.drawRect(dr);
                QStringList lines{d.name};
                lines << d.replicas;
                if (d.holdsVariables)
                    lines << tr("the variables");
                for (int i = 0; i < lines.size(); ++i)
                    p.drawText(QRectF(dr.left() + 4, dr.top() + (i == 0 ? 0 : kTitle + kLine * (i - 1)), dr.width() - 8,
                                      i == 0 ? kTitle : kLine),
                               Qt::AlignLeft | Qt::AlignVCenter, lines[i]);
            }
            // A ps task's shards, each a chip in its colour.
            qreal y = r.bottom() - kLine * qreal(t.shards.size()) - kPad / 2;
            for (const app::MapShard& s : t.shards) {
                const QRectF chip(r.left() + kPad, y, r.width() - 2 * kPad, kLine - 2);
                p.setPen(Qt::NoPen);
                p.setBrush(psColour(s.ps));
                p.drawRect(chip);
                p.setPen(Qt::white);
                p.drawText(chip.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                           QStringLiteral("%1  %2").arg(s.name, bytes(s.bytes)));
                y += kLine;
            }
        }
    }

    // The gradients' path, over the boxes.
    QColor path = pal.color(QPalette::Highlight);
    path.setAlpha(170);
    p.setPen(QPen(path, 1.6));
    p.setBrush(path);
    for (const app::MapArrow& a : m_map.arrows) {
        const QRectF from = m_boxes.value(a.from), to = m_boxes.value(a.to);
        if (from.isNull() || to.isNull())
            continue;
        const bool stacked = from.left() < to.right() && to.left() < from.right(); // one above the other
        if (stacked) {
            // Along the boxes' right edges, bulging out to the right.
            const QPointF start(from.right(), from.center().y()), end(to.right(), to.center().y());
            const qreal bulge = 18 + std::abs(end.y() - start.y()) / 8;
            QPainterPath curve(start);
            const QPointF c1 = start + QPointF(bulge, 0), c2 = end + QPointF(bulge, 0);
            curve.cubicTo(c1, c2, end);
            p.setBrush(Qt::NoBrush);
            p.drawPath(curve);
            p.setBrush(path);
            arrowHead(p, end, c2);
        } else {
            const QPointF start = edgePoint(from, to.center()), end = edgePoint(to, from.center());
            p.drawLine(start, end);
            arrowHead(p, end, start);
        }
    }

    // The variables: a bar each, cut into its shards in their ps task's colour.
    if (m_map.variables.isEmpty())
        return;
    qreal y = 0;
    for (const QRectF& r : m_boxes)
        y = std::max(y, r.bottom());
    y += kPad;
    p.setPen(text);
    p.drawText(QRectF(kMargin, y, width() - 2 * kMargin, kTitle), Qt::AlignLeft | Qt::AlignVCenter,
               m_map.psTasks.isEmpty() ? tr("Variables (where their copies are)")
                                       : tr("Variables and their shards (coloured by the ps task holding each)"));
    y += kTitle;
    for (const app::MapVariable& v : m_map.variables) {
        p.setPen(text);
        p.drawText(QRectF(kMargin, y, kVariableName, kVariableRow - 2), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("%1 %2").arg(v.name, v.shape));
        const QRectF bar(kMargin + kVariableName, y + 2, kBarWidth, kVariableRow - 6);
        if (v.shards.isEmpty()) {
            p.setPen(Qt::NoPen);
            p.setBrush(psColour(-1));
            p.drawRect(bar);
            p.setPen(text);
            p.drawText(bar.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       QStringLiteral("%1 on %2").arg(bytes(v.bytes), v.devices.join(QStringLiteral(", "))));
        } else {
            qint64 total = 0;
            for (const app::MapShard& s : v.shards)
                total += s.bytes;
            qreal x = bar.left();
            for (const app::MapShard& s : v.shards) {
                const qreal w = total > 0 ? bar.width() * qreal(s.bytes) / qreal(total) : bar.width() / v.shards.size();
                const QRectF piece(x, bar.top(), w, bar.height());
                p.setPen(QPen(pal.color(QPalette::Base), 1));
                p.setBrush(psColour(s.ps));
                p.drawRect(piece);
                p.setPen(Qt::white);
                p.drawText(piece.adjusted(3, 0, -3, 0), Qt::AlignLeft | Qt::AlignVCenter,
                           s.ps >= 0 ? m_map.psTasks.value(s.ps) : QString());
                x += w;
            }
        }
        y += kVariableRow;
    }
}

} // namespace strata::ui
