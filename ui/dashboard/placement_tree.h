#pragma once
// The placement as a tree: each task on its node, its devices and replicas, the gradient
// reduction (buckets, bytes per step, the tasks it spans), a ParameterServer coordinator's
// ps tasks, partitioner and staleness bound, and every variable with its shards. Every task
// open, but in a job of many (more than app::kMapWholeUpTo): a line each to open. Rebuilt only
// when the placement changes, so what the user expanded stays expanded.

#include "app/metrics/placement.h"

#include <QTreeWidget>

namespace strata::ui {

class PlacementTree : public QTreeWidget {
    Q_OBJECT

public:
    explicit PlacementTree(QWidget* parent = nullptr);

    // False when the placement did not change (the tree is left as it is).
    bool refresh(const QList<app::TaskPlacement>& tasks, const QList<app::TaskSummary>& summaries);
    // Before a new run: empty. (Not reset(): QAbstractItemView's, called on every model reset.)
    void forget();

private:
    QString m_shown; // what the tree shows, to rebuild only on change
};

} // namespace strata::ui
