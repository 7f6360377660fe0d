#include "host_checks.h"

#include "strata/core/error.h"
#include "strata/core/posix_handles.h"
#include "strata/schema/data_files.h"
#include "strata/schema/json_reader.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

namespace strata::cli {

namespace {

using Json = nlohmann::ordered_json;

// Why `path` cannot be read (a file or a directory), or empty.
std::string unreadable(const std::string& path)
{
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    return fd.valid() ? std::string() : std::strerror(errno);
}

// Why `host`:`port` cannot be listened on right now, or empty. Bound as the rendezvous
// binds (SO_REUSEADDR, any of the host's addresses); "localhost" is 127.0.0.1 as there.
std::string unbindable(const std::string& host, int64_t port)
{
    const std::string name = host == "localhost" ? "127.0.0.1" : host;
    const AddressList addresses(name, std::to_string(port), SOCK_STREAM, AI_PASSIVE | AI_NUMERICSERV);
    if (!addresses.ok())
        return "cannot resolve " + host + ": " + addresses.error();
    std::string why = "no address";
    for (const addrinfo& a : addresses) {
        const UniqueFd fd(::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC, a.ai_protocol));
        if (!fd.valid()) {
            why = std::strerror(errno);
            continue;
        }
        const int one = 1;
        ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd.get(), a.ai_addr, a.ai_addrlen) == 0 && ::listen(fd.get(), 1) == 0)
            return {};
        why = std::strerror(errno);
    }
    return why;
}

// Whether the data `experiment` names is all here: the files the loaders would open, or the
// first one missing with the message loading would give.
Json checkData(const Json& experiment)
{
    try {
        Json files = Json::array();
        for (const std::string& f : schema::dataFiles(schema::parseExperiment(experiment, "")))
            files.push_back(f);
        return {{"ok", true}, {"files", files}};
    } catch (const Error& e) {
        return {{"ok", false}, {"error", e.what()}};
    }
}

Json result(Json fields, const std::string& problem)
{
    fields["ok"] = problem.empty();
    if (!problem.empty())
        fields["error"] = problem;
    return fields;
}

// A list field whose elements are read by `read` (each reporting at its own path).
template<typename Read>
void forEachElement(schema::ObjectReader& r, const std::string& field, Read read)
{
    const Json* list = r.child(field);
    if (!list)
        return;
    if (!list->is_array()) {
        r.problems().add(r.pathOf(field), "must be a list, got " + schema::describe(*list));
        return;
    }
    for (size_t i = 0; i < list->size(); ++i)
        read((*list)[i], schema::indexPath(r.pathOf(field), i));
}

} // namespace

Json checkHost(const Json& request)
{
    schema::Problems problems;
    schema::ObjectReader r(request, "", problems);
    std::vector<std::string> paths;
    forEachElement(r, "paths", [&](const Json& p, const std::string& path) {
        if (p.is_string())
            paths.push_back(p.get<std::string>());
        else
            problems.add(path, "must be a path (a string), got " + schema::describe(p));
    });
    std::vector<std::pair<std::string, int64_t>> binds;
    forEachElement(r, "bind", [&](const Json& b, const std::string& path) {
        schema::ObjectReader e(b, path, problems);
        const auto host = e.maybeString("host", true);
        const auto port = e.maybeInteger("port", true, 1, 65535);
        e.finish();
        if (host && port)
            binds.emplace_back(*host, *port);
    });
    // The experiment as launched: its data is looked for as the engine will look for it.
    const Json* experiment = r.child("experiment");
    std::optional<std::string> freeHost;
    int64_t from = 0, count = 0;
    std::set<int64_t> skip;
    if (const Json* f = r.child("free_ports")) {
        schema::ObjectReader e(*f, r.pathOf("free_ports"), problems);
        freeHost = e.maybeString("host", true);
        from = e.maybeInteger("from", true, 1, 65535).value_or(0);
        count = e.integer("count", 1, 0, 1024);
        for (const int64_t port : e.integerList("skip", 1))
            skip.insert(port);
        e.finish();
    }
    r.finish();
    problems.throwIfAny();

    std::error_code ec;
    Json out{{"engine", std::filesystem::read_symlink("/proc/self/exe", ec).string()},
             {"paths", Json::array()},
             {"bind", Json::array()},
             {"free_ports", Json::array()}};
    for (const auto& path : paths)
        out["paths"].push_back(result({{"path", path}}, unreadable(path)));
    for (const auto& [host, port] : binds)
        out["bind"].push_back(result({{"host", host}, {"port", port}}, unbindable(host, port)));
    for (int64_t port = from; freeHost && port <= 65535 && static_cast<int64_t>(out["free_ports"].size()) < count; ++port)
        if (!skip.count(port) && unbindable(*freeHost, port).empty())
            out["free_ports"].push_back(port);
    if (experiment)
        out["data"] = checkData(*experiment);
    return out;
}

} // namespace strata::cli
