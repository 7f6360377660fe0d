#pragma once
// Plots that share an x axis move together (PlotJuggler's habit): zooming or panning one
// zooms the others to the same x range, fitting one fits them all, and the mouse over one
// draws the crosshair at the same x on each. Not owning: a plot leaves the link when destroyed.

#include <QObject>
#include <QPointer>

#include <vector>

namespace strata::ui {

class SeriesPlot;

class PlotLink : public QObject {
    Q_OBJECT

public:
    explicit PlotLink(QObject* parent = nullptr);

    void add(SeriesPlot* plot);
    const std::vector<QPointer<SeriesPlot>>& plots() const { return m_plots; }

private:
    // Calls `apply` on every linked plot but `source`, once (their own signals do not echo back).
    template<typename Apply>
    void forOthers(SeriesPlot* source, Apply apply);

    std::vector<QPointer<SeriesPlot>> m_plots;
    bool m_applying = false;
};

} // namespace strata::ui
