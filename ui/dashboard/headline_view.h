#pragma once
// The run's figures in large type, a tile each: loss and accuracy (training, and the last
// epoch's validation beneath), the job's samples per second, the epoch, elapsed time and ETA,
// and the test metrics once the run has them. A figure not reported (yet) reads "—".

#include "app/metrics/headline.h"
#include "app/metrics/metrics_store.h"

#include <QWidget>

class QLabel;

namespace strata::ui {

class HeadlineView : public QWidget {
    Q_OBJECT

public:
    explicit HeadlineView(QWidget* parent = nullptr);

    void refresh(const app::Headline& headline, const app::Progress& progress);
    // The value shown by tile `name` ("loss", "accuracy", "throughput", "epoch", "time", "test").
    QString value(const QString& name) const;

private:
    struct Tile {
        QLabel* caption;
        QLabel* value;
        QLabel* detail;
    };
    Tile addTile(const QString& name, const QString& caption);

    Tile m_loss, m_accuracy, m_throughput, m_epoch, m_time, m_test;
};

} // namespace strata::ui
