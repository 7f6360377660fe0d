// PlacementMapView: the map laid out (hosts in rows, groups closed or open) and the clicks
// that open and close its groups. Its painting: placement_map_paint.cpp.
#include "ui/dashboard/placement_map_view.h"

#include "ui/dashboard/placement_map_sizes.h"
#include "ui/plot/plot_image.h"
#include "ui/shell/theme.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace strata::ui {

using namespace placement_map;

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
    m_caption = m_map.tuning.isEmpty() ? m_map.strategy : QStringLiteral("%1 — %2").arg(m_map.strategy, m_map.tuning);
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

} // namespace strata::ui
