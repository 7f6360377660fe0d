#include "app/metrics/headline.h"

#include "app/metrics/epoch_lines.h"
#include "app/metrics/job_roles.h"
#include "app/metrics/run_outcome.h"

#include "strata/schema/events.h"

#include <cmath>

namespace strata::app {

namespace {
double numberIn(const Json& object, const std::string& key)
{
    if (!object.is_object())
        return Headline::kNone;
    const auto found = object.find(key);
    return found != object.end() && found->is_number() ? found->get<double>() : Headline::kNone;
}
} // namespace

Headline headline(const MetricsStore& store)
{
    Headline h;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        const TaskData* primary = primaryTask(tasks);
        if (!primary)
            return;
        if (!primary->loss.empty())
            h.loss = primary->loss.lastY();
        h.accuracyName = accuracyMetric(*primary);
        if (!h.accuracyName.isEmpty())
            h.accuracy = primary->metrics.at(h.accuracyName).lastY();
        const std::string accuracy = h.accuracyName.isEmpty() ? std::string("accuracy") : h.accuracyName.toStdString();
        if (!primary->epochs.empty()) {
            const EpochRecord& last = primary->epochs.back();
            h.validationLoss = numberIn(last.validation, "loss");
            h.validationAccuracy = numberIn(last.validation, accuracy);
            if (h.accuracyName.isEmpty() && std::isfinite(h.validationAccuracy))
                h.accuracyName = QString::fromStdString(accuracy);
            h.epoch = last.epoch + 1;
        }
        h.epochs = int(schema::readStartEvent(primary->start).epochs);
        if (primary->done.is_object()) {
            const Json& test = primary->done.contains("test") ? primary->done["test"] : Json();
            h.testLoss = numberIn(test, "loss");
            h.testAccuracy = numberIn(test, accuracy);
        }
        double sum = 0;
        bool any = false;
        for (const TaskData* t : throughputTasks(tasks))
            if (!t->samplesPerSec.empty()) {
                sum += t->samplesPerSec.lastY();
                any = true;
            }
        if (any)
            h.samplesPerSec = sum;
    });
    return h;
}

} // namespace strata::app
