#include "app/metrics/run_phase.h"

#include "app/metrics/job_roles.h"

#include <QCoreApplication>

namespace strata::app {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("strata::app::RunPhase", text); }

// Every task that trains has run its last step and is still there.
bool trainingDone(const MetricsStore& store)
{
    bool done = false;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        const std::vector<const TaskData*> training = throughputTasks(tasks);
        done = !training.empty();
        for (const TaskData* t : training)
            done = done && t->totalSteps > 0 && t->step >= t->totalSteps && t->state == TaskState::Running;
    });
    return done;
}
// What a batch scheduler says of a task still waiting for it ("pending (Resources)"); empty
// when none waits.
QString scheduled(const MetricsStore& store)
{
    QString state;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData& t : tasks)
            if (!t.scheduled.isEmpty() && state.isEmpty())
                state = t.scheduled;
    });
    return state;
}
} // namespace

RunStatus runStatus(const MetricsStore& store, RunOutcome outcome)
{
    RunStatus s;
    const Progress p = store.progress();
    s.step = p.step;
    s.totalSteps = p.totalSteps;
    s.fraction = p.fraction;
    const QString steps = p.totalSteps > 0 ? tr("step %1 / %2").arg(p.step).arg(p.totalSteps) : tr("step %1").arg(p.step);
    switch (outcome) {
    case RunOutcome::None:
        s.phase = store.eventCount() > 0 ? RunPhase::Training : RunPhase::NoRun;
        break;
    case RunOutcome::Running:
        s.phase = p.step == 0 ? RunPhase::Starting : trainingDone(store) ? RunPhase::Evaluating : RunPhase::Training;
        break;
    case RunOutcome::Completed: s.phase = RunPhase::Completed; break;
    case RunOutcome::Stopped: s.phase = RunPhase::Stopped; break;
    case RunOutcome::Failed: s.phase = RunPhase::Failed; break;
    }
    switch (s.phase) {
    case RunPhase::NoRun: s.text = tr("no run yet"); break;
    case RunPhase::Starting: {
        const QString waiting = scheduled(store);
        s.text = waiting.isEmpty() ? tr("starting the engines") : tr("in the batch queue: %1").arg(waiting);
        break;
    }
    case RunPhase::Training: s.text = steps; break;
    case RunPhase::Evaluating: s.text = tr("%1: evaluating").arg(steps); break;
    case RunPhase::Completed: s.text = tr("completed: %1").arg(steps); break;
    case RunPhase::Stopped: s.text = tr("stopped at %1").arg(steps); break;
    case RunPhase::Failed: s.text = p.step > 0 ? tr("failed at %1").arg(steps) : tr("failed before its first step"); break;
    }
    return s;
}

QString phaseName(RunPhase phase)
{
    switch (phase) {
    case RunPhase::NoRun: return tr("No run yet");
    case RunPhase::Starting: return tr("Starting");
    case RunPhase::Training: return tr("Training");
    case RunPhase::Evaluating: return tr("Evaluating");
    case RunPhase::Completed: return tr("Completed");
    case RunPhase::Stopped: return tr("Stopped");
    case RunPhase::Failed: return tr("Failed");
    }
    return {};
}

} // namespace strata::app
