#pragma once
// The placement as a picture: app::PlacementMap painted. Hosts are boxes holding their tasks,
// each task its devices (each replica on its device, the device's utilization and memory as
// last reported), a ps task its shards; every place holding variables has a colour (a ps
// task, or a device holding a copy), and so do the variables below, as bars cut into their
// shards or copies. The gradients' path is drawn as arrows: solid for gradients on their way
// (the all-reduce ring, onto one device, pushes to the ps tasks), dashed for what comes back
// (the sum, the variables). Colours follow the palette (light or dark). Sized to its content:
// put it in a scroll area. Exports as PNG, SVG or PDF.

#include "app/metrics/placement_map.h"

#include <QColor>
#include <QHash>
#include <QRectF>
#include <QWidget>

namespace strata::ui {

class PlacementMapView : public QWidget {
    Q_OBJECT

public:
    explicit PlacementMapView(QWidget* parent = nullptr);

    void setMap(const app::PlacementMap& map);
    const app::PlacementMap& map() const { return m_map; }
    // Where a box is drawn (a host by its place, a task or device by its id); null when none.
    QRectF boxOf(const QString& id) const { return m_boxes.value(id); }
    // The colour of the place at `index` of PlacementMap::places (its box, its variables).
    static QColor placeColour(int index, const QPalette& palette);

    // .png, .svg or .pdf by suffix; false with `error` set.
    bool exportImage(const QString& path, QString* error = nullptr) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // Where every box goes (by id), and the size of the whole.
    void layoutMap();
    void paintMap(QPainter& p) const;
    void paintTask(QPainter& p, const app::MapTask& task) const;
    void paintDevice(QPainter& p, const app::MapDevice& device) const;
    void paintArrows(QPainter& p) const;
    void paintVariables(QPainter& p, qreal top) const;

    app::PlacementMap m_map;
    QHash<QString, QRectF> m_boxes; // hosts by place, tasks and devices by id
    QSizeF m_size;
    QString m_caption;      // the strategy and its reduction
    qreal m_captionHeight = 0, m_pathHeight = 0; // the caption's two parts, wrapped
};

} // namespace strata::ui
