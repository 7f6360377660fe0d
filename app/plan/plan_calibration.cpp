#include "app/plan/plan_calibration.h"

#include "app/plan/scaling_model.h"

#include <QCoreApplication>

#include <cmath>
#include <set>

namespace strata::app::plan {

QString hostSetKey(QStringList hosts)
{
    hosts.removeDuplicates();
    hosts.sort();
    return hosts.join(QLatin1Char(','));
}

double calibrationFactor(const Calibration& calibration, Strategy strategy, const QString& hostSet)
{
    for (const CalibrationEntry& e : calibration.entries)
        if (e.strategy == strategy && e.hostSet == hostSet)
            return e.factor;
    return 1.0;
}

Calibration calibrated(Calibration calibration, const Prediction& prediction, const QString& hostSet,
                       double measuredSamplesPerSecond)
{
    const double raw = prediction.calibration > 0 ? prediction.samplesPerSecond / prediction.calibration : 0;
    if (raw <= 0 || measuredSamplesPerSecond <= 0 || !std::isfinite(measuredSamplesPerSecond))
        return calibration;
    const double ratio = measuredSamplesPerSecond / raw;
    for (CalibrationEntry& e : calibration.entries)
        if (e.strategy == prediction.strategy && e.hostSet == hostSet) {
            e.factor = std::exp((std::log(e.factor) * e.runs + std::log(ratio)) / (e.runs + 1));
            ++e.runs;
            return calibration;
        }
    calibration.entries.push_back({prediction.strategy, hostSet, ratio, 1});
    return calibration;
}

double predictionError(double predictedSamplesPerSecond, double measuredSamplesPerSecond)
{
    return measuredSamplesPerSecond > 0 ? (predictedSamplesPerSecond - measuredSamplesPerSecond) / measuredSamplesPerSecond
                                        : 0.0;
}

nlohmann::ordered_json calibrationToJson(const Calibration& calibration)
{
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const CalibrationEntry& e : calibration.entries)
        entries.push_back({{"strategy", strategyName(e.strategy).toStdString()},
                           {"hosts", e.hostSet.toStdString()},
                           {"factor", e.factor},
                           {"runs", e.runs}});
    return {{"v", 1}, {"entries", entries}};
}

Calibration calibrationFromJson(const nlohmann::json& json)
{
    Calibration c;
    if (!json.is_object() || !json.contains("entries") || !json["entries"].is_array())
        return c;
    for (const auto& e : json["entries"]) {
        if (!e.is_object() || !e.value("strategy", nlohmann::json()).is_string() || !e.value("factor", nlohmann::json()).is_number())
            continue;
        const auto s = strategyNamed(QString::fromStdString(e["strategy"].get<std::string>()));
        const double factor = e["factor"].get<double>();
        if (!s || !(factor > 0) || !std::isfinite(factor))
            continue;
        c.entries.push_back({*s, QString::fromStdString(e.value("hosts", std::string())), factor,
                             std::max(1, e.value("runs", 1))});
    }
    return c;
}

QString calibrationNote(const ScalingPlan& plan, const Calibration& calibration)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("PlanSession", text); };
    QStringList parts;
    std::set<Strategy> seen;
    int runs = 0;
    for (const Prediction& p : plan.predictions) {
        if (p.calibration == 1 || !seen.insert(p.strategy).second)
            continue;
        int taught = 0;
        for (const CalibrationEntry& e : calibration.entries)
            if (e.strategy == p.strategy && e.hostSet == plan.request.hostSet)
                taught = e.runs;
        runs += taught;
        QString part = tr("%1 x%2").arg(strategyName(p.strategy)).arg(p.calibration, 0, 'f', 2);
        if (taught > 0)
            part += taught == 1 ? tr(" (1 run)") : tr(" (%1 runs)").arg(taught);
        parts << part;
    }
    if (parts.isEmpty())
        return {};
    return (runs == 1   ? tr("Calibrated by 1 finished run on this experiment's hosts: ")
            : runs > 1 ? tr("Calibrated by %1 finished runs on this experiment's hosts: ").arg(runs)
                       : tr("Calibrated by finished runs: ")) +
           parts.join(QStringLiteral(", ")) + '.';
}

} // namespace strata::app::plan
