#include "strata/report/event_sink.h"

#include "strata/core/error.h"
#include "strata/rundir/task_files.h"
#include "strata/schema/events.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

namespace strata::run {

EventSink::EventSink(std::string task, std::FILE* stream) : m_task(std::move(task)), m_stream(stream) {}

EventSink::~EventSink()
{
    for (std::FILE* f : {m_eventsFile, m_stepsFile})
        if (f)
            std::fclose(f);
}

std::string EventSink::taskFileName() const { return run::taskFileName(m_task); }

void EventSink::openRunFiles(const std::string& runDir)
{
    const auto open = [&](const std::string& prefix) {
        const std::string path = (std::filesystem::path(runDir) / (prefix + taskFileName() + ".jsonl")).string();
        std::FILE* f = std::fopen(path.c_str(), "a+");
        if (!f)
            throw IoError("cannot write " + path + ": " + std::strerror(errno));
        // An earlier session killed mid-write left a torn last line: end it, so that it stays
        // one bad line and this session's first event is not glued to it.
        if (std::fseek(f, -1, SEEK_END) == 0 && std::fgetc(f) != '\n')
            std::fputc('\n', f);
        return f;
    };
    std::lock_guard lock(m_mutex);
    m_eventsFile = open("events-");
    m_stepsFile = open("steps-");
    for (const auto& line : m_beforeFiles)
        writeLine(m_eventsFile, line);
    m_beforeFiles.clear();
    std::fflush(m_eventsFile);
}

double EventSink::now()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

void EventSink::writeLine(std::FILE* f, const std::string& line)
{
    if (!f)
        return;
    std::fwrite(line.data(), 1, line.size(), f);
}

void EventSink::emit(const char* type, Json fields)
{
    Json event{{"v", schema::kEventSchemaVersion}, {"type", type}, {"t", now()}, {"task", m_task}};
    event.update(fields);
    const std::string line = event.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    std::lock_guard lock(m_mutex);
    // The step records made so far, then the event (a few events a second: the cost is nothing),
    // so that whoever follows the files (`strata export tensorboard --follow`) and sees an
    // event (`done` above all) also has every step before it.
    if (m_stepsFile)
        std::fflush(m_stepsFile);
    // The events file before the stream, flushed like it: an engine killed at any moment
    // leaves in its events file at least what its reader was sent, so the run rebuilt from its
    // directory shows what was seen live.
    if (m_eventsFile) {
        writeLine(m_eventsFile, line);
        std::fflush(m_eventsFile);
    } else {
        m_beforeFiles.push_back(line);
    }
    writeLine(m_stream, line);
    // The live stream is read line by line: never hold an event back.
    if (m_stream)
        std::fflush(m_stream);
}

void EventSink::record(Json fields, std::string_view trace)
{
    Json timed{{"t", now()}};
    timed.update(fields);
    std::lock_guard lock(m_mutex);
    if (!m_stepsFile)
        return;
    std::string line = timed.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (!trace.empty()) {
        line.pop_back(); // the object's '}'
        line += ",\"trace\":";
        line += trace;
        line += '}';
    }
    line += '\n';
    writeLine(m_stepsFile, line);
}

void EventSink::flush()
{
    std::lock_guard lock(m_mutex);
    for (std::FILE* f : {m_eventsFile, m_stepsFile, m_stream})
        if (f)
            std::fflush(f);
}

} // namespace strata::run
