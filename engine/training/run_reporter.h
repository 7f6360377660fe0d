#pragma once
// What every training loop (Trainer's, a ParameterServer coordinator's) reports the same way:
// log lines, the run directory's experiment copy and summary, the `start` and `epoch` events
// with their progress lines, and the error a loss that is no longer finite stops it with.

#include "strata/nn/sequential.h"
#include "strata/report/event_sink.h"
#include "strata/report/progress_bar.h"
#include "strata/rundir/run_directory.h"
#include "strata/schema/events.h"
#include "strata/schema/experiment.h"

#include <string>

namespace strata::run {

class RunReporter {
public:
    // `progress`: the human progress line on stderr (null: none).
    RunReporter(EventSink& events, ProgressBar* progress) : m_events(events), m_progress(progress) {}

    // A `log` event, and the same message on the progress line.
    void log(const std::string& level, const std::string& message);
    // The experiment copy and the model's summary into `runDir` when this task writes the run's
    // files, then the experiment's notes as warnings (every task).
    void openRun(const RunDirectory& runDir, const schema::Experiment& experiment, const nn::Sequential& model,
                 bool writeFiles);
    void start(const schema::StartEvent& event);
    // The `epoch` event and the progress line that ends the epoch.
    void endEpoch(const schema::EpochEvent& event, int64_t stepsPerEpoch);

private:
    EventSink& m_events;
    ProgressBar* m_progress;
};

// Throws NumericError when `loss` is NaN or infinite: "loss became NaN at step <step><where>;
// try a lower learning rate" (`step` counted from 1, `where` what else locates it).
void checkLossFinite(double loss, int64_t step, const std::string& where);

} // namespace strata::run
