#pragma once
// Every plot of the dashboard declared once: its kind, name, title and axes, where it goes,
// the lines it draws and how its axes read. The page builds, places, links and styles its
// plots from this table alone, so adding a plot is adding a row (and a PlotKind).

#include "ui/dashboard/dashboard_page.h"
#include "ui/plot/plot_ticks.h"

#include <memory>
#include <vector>

namespace strata::app {
class MetricsStore;
class StoreLines;
} // namespace strata::app

namespace strata::ui {

struct DashboardPanel {
    // Main: large, at the top; Strip: the row of small plots under them; the others: the tab
    // of that name, shown only for the jobs it applies to.
    enum class Place { Main, Strip, EvaluationTab, StalenessTab, ParameterServersTab };

    DashboardPage::PlotKind kind;
    const char* objectName;
    const char* title; // translated in the DashboardPage context
    const char* xLabel;
    const char* yLabel;
    Place place;
    std::unique_ptr<app::StoreLines> (*makeSource)(const app::MetricsStore& store);
    bool stepAxis = true; // x counts steps (whole ticks; linked with the other step plots)
    bool logY = false;
    TickUnits units = TickUnits::Plain;
    double fixedYLow = 0, fixedYHigh = 0; // equal: y follows the data
};

// In PlotKind order.
const std::vector<DashboardPanel>& dashboardPanels();

} // namespace strata::ui
