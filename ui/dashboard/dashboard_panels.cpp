#include "ui/dashboard/dashboard_panels.h"

#include "app/metrics/epoch_lines.h"
#include "app/metrics/store_lines.h"

#include <QtGlobal>

namespace strata::ui {

namespace {
template<typename Lines>
std::unique_ptr<app::StoreLines> make(const app::MetricsStore& store)
{
    return std::make_unique<Lines>(store);
}

using P = DashboardPanel::Place;
using D = DashboardPage;
} // namespace

const std::vector<DashboardPanel>& dashboardPanels()
{
    static const std::vector<DashboardPanel> panels{
        {D::LossPlot, "lossPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Loss"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "loss"),
         P::Main, make<app::ReplicaLossLines>},
        {D::AccuracyPlot, "accuracyPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Accuracy"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "accuracy"),
         P::Main, make<app::AccuracyLines>},
        {D::ThroughputPlot, "throughputPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Throughput"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "samples/s"),
         P::Strip, make<app::ThroughputLines>},
        // One slow first step (caches warming up) flattens the line: the step split beside it has
        // the numbers of the latest windows, and log y is a click away.
        {D::StepTimePlot, "stepTimePlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Step time"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "ms per step"),
         P::Strip, make<app::StepTimeLines>},
        {D::UtilizationPlot, "utilizationPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Device utilization"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "busy fraction"),
         P::Strip, make<app::DeviceUtilizationLines>, true, false, TickUnits::Plain, 0, 1.05},
        // Variables (kilobytes) and the process (megabytes) on one plot: a log scale shows both.
        {D::MemoryPlot, "memoryPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Device memory"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "bytes"),
         P::Strip, make<app::DeviceMemoryLines>, true, true, TickUnits::Bytes},
        {D::EvaluationPlot, "evaluationPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Evaluation of the chief's checkpoints"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "metric"),
         P::EvaluationTab, make<app::EvaluationLines>},
        {D::StalenessPlot, "stalenessPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Staleness of each worker's gradients"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "global step"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "steps behind"),
         P::StalenessTab, make<app::StalenessLines>},
        {D::PsTrafficPlot, "psTrafficPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Parameter server traffic"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "seconds"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "bytes/s"),
         P::ParameterServersTab, make<app::ParameterServerTrafficLines>, false, false, TickUnits::Bytes},
        {D::PsUpdatesPlot, "psUpdatesPlot", QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "Parameter server updates"),
         QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "seconds"), QT_TRANSLATE_NOOP("strata::ui::DashboardPage", "updates/s"),
         P::ParameterServersTab, make<app::ParameterServerUpdatesLines>, false},
    };
    return panels;
}

} // namespace strata::ui
