#include "run_reporter.h"

#include "strata/core/error.h"

#include <cmath>

namespace strata::run {

void RunReporter::log(const std::string& level, const std::string& message)
{
    m_events.emit(schema::event::kLog, {{"level", level}, {"message", message}});
    if (m_progress)
        m_progress->message(message);
}

void RunReporter::openRun(const RunDirectory& runDir, const schema::Experiment& experiment, const nn::Sequential& model,
                          bool writeFiles)
{
    if (writeFiles) {
        writeExperimentCopy(runDir, experiment);
        runDir.writeFile("summary.txt", schema::summary(model.spec(), model.shapes()));
    }
    for (const auto& note : experiment.notes)
        log("warning", note.str());
}

void RunReporter::start(const schema::StartEvent& event) { m_events.emit(schema::event::kStart, schema::toJson(event)); }

void RunReporter::endEpoch(const schema::EpochEvent& event, int64_t stepsPerEpoch)
{
    m_events.emit(schema::event::kEpoch, schema::toJson(event));
    if (!m_progress)
        return;
    NamedValues shown = event.train;
    if (event.validation)
        for (const auto& [name, value] : *event.validation)
            shown.emplace_back("val_" + name, value);
    m_progress->endEpoch(stepsPerEpoch, shown);
}

void checkLossFinite(double loss, int64_t step, const std::string& where)
{
    if (!std::isfinite(loss))
        throw NumericError("loss became " + std::string(std::isnan(loss) ? "NaN" : "Inf") + " at step " +
                           std::to_string(step) + where + "; try a lower learning rate");
}

} // namespace strata::run
