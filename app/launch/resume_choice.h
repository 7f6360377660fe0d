#pragma once
// A launch into a run directory that holds checkpoints: the engine resumes from them only when
// the experiment is the one that wrote them, and refuses otherwise (an `error` event of kind
// "resume" naming each differing field and the choices; docs/event-schema.md). The user then
// chooses to start fresh (the earlier checkpoints set aside) or to load the weights only: the
// engine's --fresh and --weights-only, passed on by `strata-engine start`.

#include "app/metrics/metrics_store.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace strata::app {

enum class ResumeChoice { Resume, Fresh, WeightsOnly };

// The engine's option for `choice` (none for Resume).
QStringList resumeFlags(ResumeChoice choice);

// A launch the engine refused to resume from the run directory's checkpoint.
struct ResumeRefusal {
    QString task;             // the task that decided (the chief)
    QString message;          // the engine's, which names each field and the choices
    QStringList differences;  // "model.layers[1].units: 128 (checkpoint) vs 256 (experiment)"
    bool weightsOnly = false; // the checkpoint's weights fit the model: --weights-only is possible
};

// The refusal in `store`'s run, if its run ended on one.
std::optional<ResumeRefusal> resumeRefusal(const MetricsStore& store);

} // namespace strata::app
