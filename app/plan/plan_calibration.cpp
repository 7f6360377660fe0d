#include "app/plan/plan_calibration.h"

#include "app/plan/scaling_model.h"

#include <cmath>

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

} // namespace strata::app::plan
