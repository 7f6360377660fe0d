#include "ui/dashboard/placement_map_view.h"

#include "app/metrics/placement_map_groups.h"
#include "ui/plot/plot_image.h"
#include "ui/shell/theme.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
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
constexpr qreal kHostWidth = kTaskWidth + 2 * kPad;
constexpr qreal kDeviceInset = 26; // room inside a task for the arrows between its devices
constexpr qreal kHostGap = 84;     // room for the arrows of two hosts side by side
constexpr qreal kRowGap = 40;      // between rows of hosts, for the arrows between them
constexpr int kHostsPerRow = 4;
constexpr qreal kStack = 6;        // the cards showing behind a group's box
constexpr int kCopiesTold = 8;     // more copies of a variable than this: told in words, not colours
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

// Its title, and what makes it stand out beneath.
qreal taskHead(const app::MapTask& t) { return kTitle + (t.alert.isEmpty() ? 0 : kLine); }

qreal taskHeight(const app::MapTask& t)
{
    qreal h = taskHead(t);
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

// A group's title with the mark of what a click does: open it, or close it.
QString toggleTitle(const QString& title, bool open)
{
    return QString(QChar(open ? 0x25BE : 0x25B8)) + QLatin1Char(' ') + title;
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

PlacementMapView::PlacementMapView(QWidget* parent) : QWidget(parent)
{
    setObjectName("placementMap");
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setContextMenuPolicy(Qt::CustomContextMenu); // the dashboard's: export
    setMouseTracking(true);                      // a hand over what a click opens
}

QColor PlacementMapView::placeColour(int index, const QPalette& palette)
{
    if (index < 0)
        return palette.color(QPalette::Mid);
    return theme::series(index, palette);
}

void PlacementMapView::setMap(const app::PlacementMap& map)
{
    if (map.empty())
        m_open.clear(); // a new run starts with its groups closed
    m_map = map;
    layoutMap();
    updateGeometry();
    update();
}

QString PlacementMapView::shownIn(const QString& id) const
{
    return m_boxes.contains(id) ? id : m_shownIn.value(id);
}

const app::MapTask* PlacementMapView::taskNamed(const QString& id) const
{
    for (const app::MapHost& h : m_map.hosts)
        for (const app::MapTask& t : h.tasks)
            if (t.id == id)
                return &t;
    return nullptr;
}

void PlacementMapView::showIn(const QStringList& tasks, const QString& id)
{
    for (const QString& task : tasks) {
        m_shownIn.insert(task, id);
        if (const app::MapTask* t = taskNamed(task))
            for (const app::MapDevice& d : t->devices)
                m_shownIn.insert(d.id, id);
    }
}

void PlacementMapView::layoutMap()
{
    m_boxes.clear();
    m_shownIn.clear();
    m_shapes.clear();
    m_toggles.clear();
    m_hostBoxes.clear();
    m_rows.clear();
    m_manyCopies = std::any_of(m_map.variables.begin(), m_map.variables.end(), [](const app::MapVariable& v) {
        return v.copies && v.pieces.size() > kCopiesTold;
    });
    // As wide as its hosts side by side (up to a row of them), or the variables' bars; the
    // caption wraps to that.
    qsizetype columns = std::min<qsizetype>(m_map.hostGroups.size(), kHostsPerRow);
    for (const app::MapHostGroup& g : m_map.hostGroups)
        if (m_open.contains(g.id))
            columns = std::max(columns, std::min<qsizetype>(g.hosts.size(), kHostsPerRow));
    const qreal hosts = qreal(columns) * (kHostWidth + kHostGap) - kHostGap;
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

    // The hosts in rows; an open group of hosts in a frame of its own rows.
    qreal x = kLeft, y = top, rowHeight = 0;
    int column = 0;
    const auto newRow = [&] {
        if (column == 0)
            return;
        m_rows.push_back({y, y + rowHeight});
        y += rowHeight + kRowGap;
        x = kLeft;
        rowHeight = 0;
        column = 0;
    };
    const auto next = [&](qreal height) {
        m_hostBoxes.push_back(QRectF(x, y, kHostWidth, height));
        x += kHostWidth + kHostGap;
        rowHeight = std::max(rowHeight, height);
        ++column;
    };
    const auto hostNamed = [&](const QString& place) {
        return std::find_if(m_map.hosts.cbegin(), m_map.hosts.cend(), [&](const app::MapHost& h) { return h.place == place; });
    };
    for (const app::MapHostGroup& g : m_map.hostGroups) {
        if (g.hosts.size() == 1 || !m_open.contains(g.id)) {
            if (column == kHostsPerRow)
                newRow();
            next(g.hosts.size() == 1 ? layoutHost(*hostNamed(g.hosts.front()), {x, y}) : layoutHostGroup(g, {x, y}));
            continue;
        }
        newRow();
        const qsizetype frame = m_shapes.size();
        m_shapes.push_back({Shape::Kind::Frame, {}, g.title, nullptr, {}, true});
        const qreal frameTop = y;
        y += kTitle + kPad;
        for (const QString& place : g.hosts) {
            if (column == kHostsPerRow)
                newRow();
            next(layoutHost(*hostNamed(place), {x, y}));
        }
        newRow();
        const qreal frameWidth =
            qreal(std::min<qsizetype>(g.hosts.size(), kHostsPerRow)) * (kHostWidth + kHostGap) - kHostGap + 2 * kPad;
        const QRectF box(kLeft - kPad, frameTop, frameWidth, y - kRowGap + kPad - frameTop);
        m_shapes[frame].rect = box;
        m_boxes.insert(g.id, box);
        m_toggles.push_back({QRectF(box.topLeft(), QSizeF(box.width(), kTitle + kPad)), g.id,
                             tr("Click to draw these %1 hosts as one").arg(g.hosts.size())});
        y = box.bottom() + kRowGap;
    }
    const qreal hostsBottom = column > 0 ? y + rowHeight : y - kRowGap;
    if (column > 0)
        m_rows.push_back({y, y + rowHeight});
    m_variablesTop = hostsBottom + kPad;
    const qreal variables = m_map.variables.isEmpty() ? 0 : kTitle + kVariableRow * qreal(m_map.variables.size());
    m_size = QSizeF(width, m_variablesTop + variables + kMargin);
}

qreal PlacementMapView::layoutHost(const app::MapHost& host, QPointF at)
{
    const qsizetype index = m_shapes.size();
    m_shapes.push_back({Shape::Kind::Host, {}, tr("host %1").arg(host.place)});
    const qreal left = at.x() + kPad;
    qreal y = at.y() + kTitle;
    for (const app::MapTaskGroup& g : host.groups) {
        if (g.tasks.size() > 1 && m_open.contains(g.id)) {
            const QRectF heading(left, y, kTaskWidth, kTitle);
            m_shapes.push_back({Shape::Kind::Heading, heading, g.title, nullptr, {}, true});
            m_boxes.insert(g.id, heading);
            m_toggles.push_back({heading, g.id, tr("Click to draw these %1 tasks as one").arg(g.tasks.size())});
            y += kTitle;
            for (const QString& id : g.tasks)
                y += layoutTask(*taskNamed(id), {left, y}) + kPad;
        } else if (g.tasks.size() > 1) {
            y += layoutTask(*taskNamed(g.tasks.front()), {left, y}, &g,
                            tr("%1: alike.\nClick to show each.").arg(g.tasks.join(QStringLiteral(", ")))) +
                 kPad;
        } else {
            y += layoutTask(*taskNamed(g.tasks.front()), {left, y}) + kPad;
        }
    }
    const QRectF box(at, QSizeF(kHostWidth, y - at.y()));
    m_shapes[index].rect = box;
    m_boxes.insert(host.place, box);
    return box.height();
}

qreal PlacementMapView::layoutHostGroup(const app::MapHostGroup& group, QPointF at)
{
    const qsizetype index = m_shapes.size();
    // Its hosts' names may be long ("node-1 ... node-9, node-11 ... node-16"): wrapped, up to three lines.
    const QRect wrapped(0, 0, int(kHostWidth - 2 * kPad), int(3 * fontMetrics().lineSpacing()));
    const qreal titleHeight = std::max<qreal>(
        kTitle, fontMetrics().boundingRect(wrapped, Qt::TextWordWrap, toggleTitle(group.title, false)).height() + 4);
    m_shapes.push_back({Shape::Kind::HostGroup, {}, group.title, nullptr, {}, false, titleHeight});
    qreal y = at.y() + titleHeight;
    for (const app::MapTaskGroup& each : group.tasks)
        y += layoutTask(*taskNamed(each.tasks.front()), {at.x() + kPad, y}, &each) + kPad;
    y += kLine; // what a click does
    const QRectF box(at, QSizeF(kHostWidth, y - at.y()));
    m_shapes[index].rect = box;
    m_boxes.insert(group.id, box);
    for (const QString& place : group.hosts)
        m_shownIn.insert(place, group.id);
    m_toggles.push_back({box.adjusted(0, 0, kStack, kStack), group.id,
                         tr("%1: alike.\nClick to show each host.").arg(group.hosts.join(QStringLiteral(", ")))});
    return box.height() + kStack;
}

qreal PlacementMapView::layoutTask(const app::MapTask& task, QPointF at, const app::MapTaskGroup* group,
                                   const QString& tip)
{
    const QRectF box(at, QSizeF(kTaskWidth, taskHeight(task)));
    if (group) {
        Shape shape{Shape::Kind::TaskGroup, box, group->title, &task, group->tasks};
        shape.opens = !tip.isEmpty();
        m_shapes.push_back(shape);
        m_boxes.insert(group->id, box);
        showIn(group->tasks, group->id);
        if (shape.opens)
            m_toggles.push_back({box.adjusted(0, 0, kStack, kStack), group->id, tip});
    } else {
        m_shapes.push_back({Shape::Kind::Task, box, task.id, &task});
        m_boxes.insert(task.id, box);
    }
    qreal y = box.top() + taskHead(task);
    for (const app::MapDevice& d : task.devices) {
        m_boxes.insert(d.id, QRectF(box.left() + kDeviceInset, y, box.width() - 2 * kDeviceInset, deviceHeight(d)));
        y += deviceHeight(d) + kPad / 2;
    }
    return box.height() + (group ? kStack : 0);
}

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

const PlacementMapView::Toggle* PlacementMapView::toggleAt(const QPointF& at) const
{
    for (const Toggle& t : m_toggles)
        if (t.rect.contains(at))
            return &t;
    return nullptr;
}

bool PlacementMapView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (const Toggle* t = toggleAt(help->pos()))
            QToolTip::showText(help->globalPos(), t->tip, this, t->rect.toRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void PlacementMapView::mousePressEvent(QMouseEvent* event)
{
    const Toggle* t = event->button() == Qt::LeftButton ? toggleAt(event->position()) : nullptr;
    m_pressed = t ? t->group : QString();
    QWidget::mousePressEvent(event);
}

void PlacementMapView::mouseReleaseEvent(QMouseEvent* event)
{
    const Toggle* t = event->button() == Qt::LeftButton ? toggleAt(event->position()) : nullptr;
    if (t && t->group == m_pressed) {
        if (!m_open.remove(t->group))
            m_open.insert(t->group);
        layoutMap();
        updateGeometry();
        update();
    }
    m_pressed.clear();
    QWidget::mouseReleaseEvent(event);
}

void PlacementMapView::mouseMoveEvent(QMouseEvent* event)
{
    setCursor(toggleAt(event->position()) ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(event);
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
