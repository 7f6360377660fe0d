#pragma once
// The placement as a picture: app::PlacementMap painted. Hosts are boxes holding their tasks,
// each task its devices (each replica on its device, the device's utilization and memory as
// last reported), a ps task its shards; every place holding variables has a colour (a ps
// task, or a device holding a copy), and so do the variables below, as bars cut into their
// shards or copies. The gradients' path is drawn as arrows: solid for gradients on their way
// (the all-reduce ring, onto one device, pushes to the ps tasks), dashed for what comes back
// (the sum, the variables). Colours follow the palette (light or dark). Sized to its content:
// put it in a scroll area. Exports as PNG, SVG or PDF.
//
// Many tasks: hosts alike and tasks alike on a host are drawn as one box each, stacked like
// cards (app::groupAlike), showing their first's devices and how busy the least and most busy
// of them are; a click opens a group (its hosts in rows of four, in a frame whose title closes
// it again; its tasks one under the other, under a title that closes them). An arrow to a task
// in a closed group goes to the group. A task that stands out (failed, lost, unreachable) is
// never in a group and is drawn in the palette's error (or warning) colour, saying so.

#include "app/metrics/placement_map.h"

#include <QColor>
#include <QHash>
#include <QList>
#include <QPair>
#include <QPolygonF>
#include <QRectF>
#include <QSet>
#include <QWidget>

namespace strata::ui {

class PlacementMapView : public QWidget {
    Q_OBJECT

public:
    explicit PlacementMapView(QWidget* parent = nullptr);

    // Groups opened stay open while the map is updated (by their ids); an empty map (a new
    // run) closes them.
    void setMap(const app::PlacementMap& map);
    const app::PlacementMap& map() const { return m_map; }
    // The bold line on top: the strategy (and its tuned buckets), its reduction, bytes per step.
    const QString& caption() const { return m_caption; }
    // Where a box is drawn (a host by its place, a task or device by its id, a group by its
    // id); null when none is (a task inside a closed group: shownIn()).
    QRectF boxOf(const QString& id) const { return m_boxes.value(id); }
    // The id of the box that shows a host, task or device: its own, or its closed group's;
    // empty when nothing shows it.
    QString shownIn(const QString& id) const;
    // Whether the group `id` (app::MapTaskGroup, app::MapHostGroup) is open.
    bool isOpen(const QString& id) const { return m_open.contains(id); }
    // The colour of the place at `index` of PlacementMap::places (its box, its variables).
    static QColor placeColour(int index, const QPalette& palette);

    // .png, .svg or .pdf by suffix; false with `error` set.
    bool exportImage(const QString& path, QString* error = nullptr) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    // What is painted, in order: a box (its kind says how) and what it shows.
    struct Shape {
        enum class Kind { Host, HostGroup, Frame, Task, TaskGroup, Heading };
        Kind kind = Kind::Task;
        QRectF rect;
        QString title;
        const app::MapTask* task = nullptr; // Task; a TaskGroup's first
        QStringList tasks;                  // a TaskGroup's (how busy their devices are)
        bool open = false;                  // a Frame's or Heading's group: open (else a plain heading)
        qreal titleHeight = 0;              // a HostGroup's title, wrapped; 0: one row
        bool opens = false;                 // a click on it opens its group
    };
    // Where a click opens or closes a group, and what its tip says.
    struct Toggle {
        QRectF rect;
        QString group;
        QString tip;
    };

    // Where every box goes (by id), what is painted, and the size of the whole.
    void layoutMap();
    qreal layoutHost(const app::MapHost& host, QPointF at);
    qreal layoutHostGroup(const app::MapHostGroup& group, QPointF at);
    // A task with its devices at `at`, or a group's box showing its first; `tip`: a click on
    // the group's box opens it (what its tip says), else the box only shows it.
    qreal layoutTask(const app::MapTask& task, QPointF at, const app::MapTaskGroup* group = nullptr,
                     const QString& tip = {});
    // Every host, task and device of `hosts` shown in the box `id`, but those drawn.
    void showIn(const QStringList& hosts, const QString& id);
    const app::MapTask* taskNamed(const QString& id) const;
    const Toggle* toggleAt(const QPointF& at) const;
    // The way an arrow takes from one box to another: straight between boxes side by side (or
    // in one host), else along the lanes between the rows and columns of hosts, never through one.
    QPolygonF route(const QRectF& from, const QRectF& to) const;

    void paintMap(QPainter& p) const;
    void paintShape(QPainter& p, const Shape& shape) const;
    void paintTask(QPainter& p, const Shape& shape) const;
    void paintDevice(QPainter& p, const app::MapDevice& device, int index, const Shape& shape) const;
    void paintArrows(QPainter& p) const;
    void paintVariables(QPainter& p, qreal top) const;

    app::PlacementMap m_map;
    QSet<QString> m_open;               // groups opened by a click
    QHash<QString, QRectF> m_boxes;     // hosts by place, tasks and devices by id, groups by id
    QHash<QString, QString> m_shownIn;  // what a closed group hides: the group's id
    QList<Shape> m_shapes;
    QList<Toggle> m_toggles;
    QList<QRectF> m_hostBoxes;          // hosts and closed groups of hosts, in rows
    QList<QPair<qreal, qreal>> m_rows;  // each row of them: top, bottom
    QString m_pressed;                  // the group a press began on
    QSizeF m_size;
    qreal m_variablesTop = 0;
    bool m_manyCopies = false;          // too many copies to tell apart by colour
    QString m_caption;      // the strategy and its reduction
    qreal m_captionHeight = 0, m_pathHeight = 0; // the caption's two parts, wrapped
};

} // namespace strata::ui
