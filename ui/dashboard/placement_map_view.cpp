#include "ui/dashboard/placement_map_view.h"

#include "ui/plot/plot_image.h"
#include "ui/shell/theme.h"

#include <QEvent>
#include <QFontMetrics>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace strata::ui {

namespace {
constexpr qreal kMargin = 12;
constexpr qreal kLeft = 44;        // room for the arrows that bulge out to the left of the first host
constexpr qreal kPad = 8;
constexpr qreal kTitle = 20;       // a box's title row
constexpr qreal kLine = 16;        // a replica's, shard's or figure's row
constexpr qreal kCaption = 18;     // each of the two caption lines
constexpr qreal kTaskWidth = 250;
constexpr qreal kDeviceInset = 26; // room inside a task for the arrows between its devices
constexpr qreal kHostGap = 84;     // room for the arrows of two hosts side by side
constexpr qreal kVariableRow = 20;
constexpr qreal kVariableName = 200;
constexpr qreal kBarWidth = 420;

QString bytes(qint64 n) { return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat); }

bool hasUsageRow(const app::MapDevice& d) { return !d.replicas.isEmpty(); }

qreal deviceHeight(const app::MapDevice& d)
{
    return kTitle + kLine * qreal(d.replicas.size() + (d.place >= 0 ? 1 : 0) + (hasUsageRow(d) ? 1 : 0)) + 2;
}

// A task with nothing inside still says what it does.
bool hasNote(const app::MapTask& t) { return t.devices.isEmpty() && t.shards.isEmpty(); }

qreal taskHeight(const app::MapTask& t)
{
    qreal h = kTitle;
    for (const app::MapDevice& d : t.devices)
        h += deviceHeight(d) + kPad / 2;
    return h + kLine * qreal(t.shards.size() + (hasNote(t) ? 1 : 0)) + kPad / 2;
}

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
} // namespace

PlacementMapView::PlacementMapView(QWidget* parent) : QWidget(parent)
{
    setObjectName("placementMap");
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setContextMenuPolicy(Qt::CustomContextMenu); // the dashboard's: export
}

QColor PlacementMapView::placeColour(int index, const QPalette& palette)
{
    if (index < 0)
        return palette.color(QPalette::Mid);
    return theme::series(index, palette);
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
    // As wide as its hosts side by side, or the variables' bars; the caption wraps to that.
    const qreal hosts = qreal(m_map.hosts.size()) * (kTaskWidth + 2 * kPad + kHostGap) - kHostGap;
    const qreal width = std::max(kLeft + hosts + kLeft, kLeft + kVariableName + kBarWidth + kMargin);
    m_caption = m_map.strategy;
    if (!m_map.reduction.isEmpty())
        m_caption += m_map.reductionBytes > 0 ? tr(": %1, %2 per step").arg(m_map.reduction, bytes(m_map.reductionBytes))
                                              : QStringLiteral(": %1").arg(m_map.reduction);
    const QRect wrapped(0, 0, int(width - kLeft - kMargin), 1000);
    QFont bold = font();
    bold.setBold(true);
    m_captionHeight =
        std::max<qreal>(kCaption, QFontMetrics(bold).boundingRect(wrapped, Qt::TextWordWrap, m_caption).height());
    m_pathHeight = std::max<qreal>(kCaption, fontMetrics().boundingRect(wrapped, Qt::TextWordWrap, m_map.path).height());
    const qreal top = kMargin + m_captionHeight + m_pathHeight + kPad;
    qreal x = kLeft, bottom = top;
    for (const app::MapHost& host : m_map.hosts) {
        qreal y = top + kTitle;
        for (const app::MapTask& t : host.tasks) {
            const QRectF task(x + kPad, y, kTaskWidth, taskHeight(t));
            m_boxes.insert(t.id, task);
            qreal dy = task.top() + kTitle;
            for (const app::MapDevice& d : t.devices) {
                m_boxes.insert(d.id, QRectF(task.left() + kDeviceInset, dy, task.width() - 2 * kDeviceInset, deviceHeight(d)));
                dy += deviceHeight(d) + kPad / 2;
            }
            y = task.bottom() + kPad;
        }
        const QRectF box(x, top, kTaskWidth + 2 * kPad, y - top);
        m_boxes.insert(host.place, box);
        bottom = std::max(bottom, box.bottom());
        x = box.right() + kHostGap;
    }
    const qreal variables = m_map.variables.isEmpty() ? 0 : kTitle + kVariableRow * qreal(m_map.variables.size());
    m_size = QSizeF(width, bottom + kPad + variables + kMargin);
}

QSize PlacementMapView::sizeHint() const
{
    return m_map.empty() ? QSize(320, 80) : m_size.toSize();
}

bool PlacementMapView::exportImage(const QString& path, QString* error) const
{
    return savePaintedImage(path, sizeHint(), tr("Placement map"), [this](QPainter& p) {
        p.fillRect(QRectF(QPointF(0, 0), QSizeF(sizeHint())), palette().color(QPalette::Base));
        paintMap(p);
    }, error);
}

void PlacementMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintMap(p);
}

void PlacementMapView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        update();
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

    for (const app::MapHost& host : m_map.hosts) {
        const QRectF h = m_boxes.value(host.place);
        p.setPen(QPen(ink, 1.5));
        p.setBrush(pal.color(QPalette::AlternateBase));
        p.drawRoundedRect(h, 6, 6);
        text(p, QRectF(h.left() + kPad, h.top(), h.width() - 2 * kPad, kTitle), tr("host %1").arg(host.place));
        for (const app::MapTask& t : host.tasks)
            paintTask(p, t);
    }
    paintArrows(p);
    qreal bottom = 0;
    for (const QRectF& r : m_boxes)
        bottom = std::max(bottom, r.bottom());
    paintVariables(p, bottom + kPad);
}

// A task's box: its name, a note on what it does when it holds no replica, its devices, and
// a ps task's shards.
void PlacementMapView::paintTask(QPainter& p, const app::MapTask& t) const
{
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    const QRectF r = m_boxes.value(t.id);
    p.setPen(t.place >= 0 ? QPen(placeColour(t.place, pal), 2.5) : QPen(ink, 1));
    p.setBrush(pal.color(QPalette::Base));
    p.drawRoundedRect(r, 4, 4);
    p.setPen(ink);
    QString title = t.id;
    if (t.role == QLatin1String("chief") && !m_map.psTasks.isEmpty())
        title += tr(" (coordinator)");
    text(p, QRectF(r.left() + kPad, r.top(), r.width() - 2 * kPad, kTitle), title);
    if (hasNote(t)) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        text(p, QRectF(r.left() + kPad, r.top() + kTitle, r.width() - 2 * kPad, kLine),
             t.role == QLatin1String("evaluator") ? tr("evaluates the chief's checkpoints")
             : t.role == QLatin1String("chief") && !m_map.psTasks.isEmpty() ? tr("schedules the workers' steps")
                                                                           : tr("no placement reported"));
    }
    for (const app::MapDevice& d : t.devices)
        paintDevice(p, d);
    // A ps task's shards, each a chip in its colour.
    qreal y = r.bottom() - kLine * qreal(t.shards.size()) - kPad / 2;
    for (const app::MapShard& s : t.shards) {
        chip(p, QRectF(r.left() + kPad, y, r.width() - 2 * kPad, kLine - 2), placeColour(s.place, pal),
             QStringLiteral("%1  %2").arg(s.name, bytes(s.bytes)));
        y += kLine;
    }
}

// A device's box: its name, its replicas, the variables it holds and how busy it is.
void PlacementMapView::paintDevice(QPainter& p, const app::MapDevice& d) const
{
    const QPalette pal = palette();
    const QColor ink = pal.color(QPalette::Text);
    QFont bold = font();
    bold.setBold(true);
    const QRectF dr = m_boxes.value(d.id);
    p.setPen(QPen(ink, 1));
    p.setBrush(pal.color(QPalette::Button));
    p.drawRect(dr);
    qreal y = dr.top();
    p.setPen(pal.color(QPalette::ButtonText));
    p.setFont(bold);
    text(p, QRectF(dr.left() + 4, y, dr.width() - 8, kTitle), d.label.isEmpty() ? d.name : d.label);
    p.setFont(font());
    y += kTitle;
    for (const QString& replica : d.replicas) {
        text(p, QRectF(dr.left() + 4, y, dr.width() - 8, kLine), replica);
        y += kLine;
    }
    if (d.place >= 0) {
        chip(p, QRectF(dr.left() + 3, y + 1, dr.width() - 6, kLine - 2), placeColour(d.place, pal),
             d.variables == 1 ? tr("1 variable, %1").arg(bytes(d.variableBytes))
                              : tr("%1 variables, %2").arg(d.variables).arg(bytes(d.variableBytes)));
        y += kLine;
    }
    if (hasUsageRow(d)) {
        // How busy, as a bar behind the figures.
        const QRectF row(dr.left() + 3, y + 1, dr.width() - 6, kLine - 2);
        if (d.usage.utilization > 0) {
            QColor busy = pal.color(QPalette::Highlight);
            busy.setAlpha(90);
            p.fillRect(QRectF(row.topLeft(), QSizeF(row.width() * std::min(d.usage.utilization, 1.0), row.height())),
                       busy);
        }
        p.setPen(pal.color(QPalette::ButtonText));
        text(p, row.adjusted(2, 0, -2, 0), usageText(d.usage));
    }
}

void PlacementMapView::paintArrows(QPainter& p) const
{
    QColor path = palette().color(QPalette::Highlight);
    path.setAlpha(200);
    p.setBrush(path);
    for (const app::MapArrow& a : m_map.arrows) {
        const QRectF from = m_boxes.value(a.from), to = m_boxes.value(a.to);
        if (from.isNull() || to.isNull())
            continue;
        const bool back = a.kind == app::MapArrow::Kind::Back;
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
            const bool devices = a.from.contains('/');
            const qreal bulge = std::min(devices ? 20.0 : 34.0, 10 + std::abs(end.y() - start.y()) / 8);
            QPainterPath curve(start);
            const QPointF c1 = start + QPointF(side * bulge, 0), c2 = end + QPointF(side * bulge, 0);
            curve.cubicTo(c1, c2, end);
            p.save();
            p.setBrush(Qt::NoBrush);
            p.drawPath(curve);
            p.restore();
            arrowHead(p, end, c2);
        } else {
            // Side by side: straight, each way shifted to its own right.
            QPointF start = edgePoint(from, to.center()), end = edgePoint(to, from.center());
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
         m_map.psTasks.isEmpty() ? tr("Variables and their copies, each in the colour of the device holding it")
                                 : tr("Variables and their shards, each in the colour of the ps task holding it"));
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
