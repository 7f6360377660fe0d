#include "app/launch/resume_choice.h"

namespace strata::app {

QStringList resumeFlags(ResumeChoice choice)
{
    switch (choice) {
    case ResumeChoice::Resume: return {};
    case ResumeChoice::Fresh: return {QStringLiteral("--fresh")};
    case ResumeChoice::WeightsOnly: return {QStringLiteral("--weights-only")};
    }
    return {};
}

std::optional<ResumeRefusal> resumeRefusal(const MetricsStore& store)
{
    const auto text = [](const Json& j, const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
    };
    std::optional<ResumeRefusal> refusal;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData& t : tasks) {
            const Json& e = t.failure;
            if (refusal || !e.is_object() || text(e, "kind") != QLatin1String("resume"))
                continue;
            refusal = ResumeRefusal{t.task, text(e, "message"), {}, false};
            if (const auto d = e.find("differences"); d != e.end() && d->is_array())
                for (const Json& difference : *d)
                    if (difference.is_object())
                        refusal->differences << QStringLiteral("%1: %2 (checkpoint) vs %3 (experiment)")
                                                    .arg(text(difference, "field"), text(difference, "checkpoint"),
                                                         text(difference, "experiment"));
            if (const auto c = e.find("choices"); c != e.end() && c->is_array())
                for (const Json& choice : *c)
                    refusal->weightsOnly =
                        refusal->weightsOnly || (choice.is_string() && choice.get<std::string>() == "weights_only");
        }
    });
    return refusal;
}

} // namespace strata::app
