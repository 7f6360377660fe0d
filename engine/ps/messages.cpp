#include "ps/messages.h"

#include "strata/distribute/communicator.h"

#include <cmath>

namespace strata::ps {

namespace {

[[noreturn]] void malformed(const Json& header, const std::string& what)
{
    const std::string op = opOf(header);
    throw distribute::CollectiveError("a " + (op.empty() ? std::string("message") : "\"" + op + "\" message") + " " + what);
}

const Json* find(const Json& header, const char* field)
{
    const auto it = header.find(field);
    return it == header.end() || it->is_null() ? nullptr : &*it;
}

} // namespace

int64_t readInteger(const Json& header, const char* field, std::optional<int64_t> fallback)
{
    const Json* v = find(header, field);
    if (!v) {
        if (!fallback)
            malformed(header, std::string("without \"") + field + "\"");
        return *fallback;
    }
    if (v->is_number_integer() && !(v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX)))
        return v->get<int64_t>();
    malformed(header, std::string("whose \"") + field + "\" is not a 64-bit integer: " + v->dump());
}

namespace {

double number(const Json& header, const char* field, std::optional<double> fallback)
{
    const Json* v = find(header, field);
    if (!v) {
        if (!fallback)
            malformed(header, std::string("without \"") + field + "\"");
        return *fallback;
    }
    if (!v->is_number())
        malformed(header, std::string("whose \"") + field + "\" is not a number: " + v->dump());
    return v->get<double>();
}

} // namespace

std::string readText(const Json& header, const char* field, const std::string& fallback)
{
    const Json* v = find(header, field);
    if (!v)
        return fallback;
    if (!v->is_string())
        malformed(header, std::string("whose \"") + field + "\" is not a string: " + v->dump());
    return v->get<std::string>();
}

std::string opOf(const Json& header)
{
    const auto it = header.find("op");
    return it != header.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t idOf(const Json& header)
{
    const auto it = header.find("id");
    return it != header.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

StepOrder readStepOrder(const Json& header)
{
    StepOrder o;
    o.op = opOf(header);
    if (o.op == "step") {
        o.step = readInteger(header, "step", std::nullopt);
        o.batch = readInteger(header, "batch", std::nullopt);
        o.epoch = readInteger(header, "epoch", 0);
        o.run = readText(header, "run", "");
        if (o.step < 0 || o.batch < 0 || o.epoch < 0)
            malformed(header, "with a negative step, batch or epoch");
    } else if (o.op == "stop") {
        o.status = readText(header, "status", "stopped");
    } else if (o.op == "clock") {
        o.sentUs = readInteger(header, "sent_us", std::nullopt);
        o.chiefUs = readInteger(header, "chief_us", std::nullopt);
    }
    return o;
}

Json headerOf(const StepOrder& o)
{
    if (o.op == "step")
        return {{"op", o.op}, {"run", o.run}, {"step", o.step}, {"batch", o.batch}, {"epoch", o.epoch}};
    if (o.op == "stop")
        return {{"op", o.op}, {"status", o.status}};
    if (o.op == "clock")
        return {{"op", o.op}, {"sent_us", o.sentUs}, {"chief_us", o.chiefUs}};
    return {{"op", o.op}};
}

WorkerMessage readWorkerMessage(const Json& header)
{
    return {opOf(header), readText(header, "task", ""), readText(header, "run", ""), readInteger(header, "pid", 0),
            readInteger(header, "sent_us", 0)};
}

Json headerOf(const WorkerMessage& m)
{
    Json header{{"op", m.op}, {"task", m.task}, {"pid", m.pid}};
    if (m.sentUs != 0)
        header["sent_us"] = m.sentUs;
    return header;
}

StepResult readStepResult(const Json& header)
{
    StepResult r;
    r.step = readInteger(header, "step", std::nullopt);
    r.samples = readInteger(header, "samples", std::nullopt);
    r.lossSum = number(header, "loss_sum", std::nullopt);
    r.regularization = number(header, "regularization", 0.0);
    if (const Json* metrics = find(header, "metrics")) {
        if (!metrics->is_array())
            malformed(header, "whose \"metrics\" is not a list");
        for (const Json& m : *metrics) {
            if (!m.is_array() || m.size() != 2 || !m[0].is_number() || !m[1].is_number())
                malformed(header, "whose \"metrics\" are not [total, count] pairs: " + m.dump());
            r.metrics.emplace_back(m[0].get<double>(), m[1].get<double>());
        }
    } else {
        malformed(header, "without \"metrics\"");
    }
    r.stalenessMean = number(header, "staleness_mean", 0.0);
    r.stalenessMax = readInteger(header, "staleness_max", 0);
    r.stepMs = number(header, "step_ms", 0.0);
    r.computeMs = number(header, "compute_ms", 0.0);
    r.commMs = number(header, "comm_ms", 0.0);
    return r;
}

Json resultHeader(const WorkerMessage& from, const StepResult& r)
{
    Json metrics = Json::array();
    for (const auto& [total, count] : r.metrics)
        metrics.push_back({total, count});
    return {{"op", "result"},
            {"task", from.task},
            {"run", from.run},
            {"step", r.step},
            {"loss_sum", r.lossSum},
            {"regularization", r.regularization},
            {"samples", r.samples},
            {"metrics", metrics},
            {"staleness_mean", r.stalenessMean},
            {"staleness_max", r.stalenessMax},
            {"step_ms", r.stepMs},
            {"compute_ms", r.computeMs},
            {"comm_ms", r.commMs}};
}

PsReply readPsReply(const Json& header)
{
    PsReply r{idOf(header), std::nullopt};
    if (const Json* error = find(header, "error"))
        r.error = error->is_string() ? error->get<std::string>() : error->dump();
    return r;
}

std::vector<int64_t> readIntegers(const Json& header, const char* field, size_t count)
{
    const Json* v = find(header, field);
    if (!v || !v->is_array() || v->size() != count)
        malformed(header, "without " + std::to_string(count) + " \"" + field + "\" values");
    std::vector<int64_t> out;
    out.reserve(count);
    for (const Json& x : *v) {
        if (!x.is_number_integer() || (x.is_number_unsigned() && x.get<uint64_t>() > uint64_t(INT64_MAX)))
            malformed(header, std::string("whose \"") + field + "\" are not 64-bit integers: " + v->dump());
        out.push_back(x.get<int64_t>());
    }
    return out;
}

} // namespace strata::ps
