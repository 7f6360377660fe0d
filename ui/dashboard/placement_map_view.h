#pragma once
// The placement as a picture: app::PlacementMap painted (hosts as boxes holding their tasks,
// each task its devices and replicas, a ps task its shards), the variables below as bars cut
// into their shards, each shard in the colour of the ps task that holds it, and the gradients'
// path as arrows (workers -> ps tasks, the all-reduce ring, the star onto one device). Sized
// to its content: put it in a scroll area.

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
    // The colour of the ps task at `index` of PlacementMap::psTasks (its shards, its box).
    static QColor psColour(int index);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    // Where every box goes (by id), and the size of the whole.
    void layoutMap();

    app::PlacementMap m_map;
    QHash<QString, QRectF> m_boxes; // hosts by place, tasks and devices by id
    QSizeF m_size;
};

} // namespace strata::ui
