#include "strata/rundir/task_record.h"

#include <fstream>
#include <sstream>

namespace strata::run {

namespace {

struct ProcStat {
    char state = 0;
    uint64_t start = 0;
};

std::optional<ProcStat> procStat(int64_t pid)
{
    if (pid <= 0)
        return std::nullopt;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(in, text))
        return std::nullopt;
    // The command name (field 2) is in parentheses and may hold spaces and ')': fields 3 on
    // follow the last ')'.
    const size_t close = text.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    ProcStat s;
    std::string skip;
    fields >> s.state;
    for (int field = 4; field < 22; ++field)
        fields >> skip;
    fields >> s.start;
    return fields ? std::optional(s) : std::nullopt;
}

} // namespace

std::optional<ProcessIdentity> ProcessIdentity::of(int64_t pid)
{
    const auto s = procStat(pid);
    if (!s || s->state == 'Z' || s->state == 'X')
        return std::nullopt;
    return ProcessIdentity{pid, s->start};
}

bool ProcessIdentity::alive() const
{
    const auto now = of(pid);
    return now && now->start == start;
}

nlohmann::ordered_json ProcessIdentity::toJson() const { return {{"pid", pid}, {"start", start}}; }

nlohmann::ordered_json TaskRecord::toJson() const
{
    nlohmann::ordered_json j{{"task", task},
                             {"host", host},
                             {"launch", launch},
                             {"supervisor", supervisor.toJson()},
                             {"trainer", trainer.toJson()},
                             {"started", started},
                             {"events_offset", eventsOffset},
                             {"stderr_offset", stderrOffset}};
    if (!ended.is_null())
        j["ended"] = ended;
    return j;
}

std::optional<TaskRecord> TaskRecord::read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    const auto j = nlohmann::ordered_json::parse(in, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    try {
        const auto identity = [&](const char* key) {
            return ProcessIdentity{j.at(key).at("pid").get<int64_t>(), j.at(key).at("start").get<uint64_t>()};
        };
        TaskRecord r;
        r.task = j.at("task").get<std::string>();
        r.host = j.value("host", "");
        r.launch = j.value("launch", "");
        r.supervisor = identity("supervisor");
        r.trainer = identity("trainer");
        r.started = j.value("started", 0.0);
        r.eventsOffset = j.value("events_offset", int64_t(0));
        r.stderrOffset = j.value("stderr_offset", int64_t(0));
        r.ended = j.value("ended", nlohmann::ordered_json());
        return r;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

} // namespace strata::run
