#include "cli.h"

#include "strata/core/error.h"
#include "strata/schema/events.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace strata::cli {

std::string Args::value(const std::string& name, const std::string& fallback) const
{
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
}

double Args::number(const std::string& name, double fallback) const
{
    if (!has(name))
        return fallback;
    try {
        size_t used = 0;
        const double n = std::stod(value(name), &used);
        if (used == value(name).size() && std::isfinite(n))
            return n;
    } catch (const std::exception&) {
    }
    throw UsageError(name + " needs a number");
}

Args parseArgs(int argc, char** argv, const std::vector<std::string>& valued)
{
    Args args;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a.starts_with("--")) {
            std::string value;
            bool hasValue = false;
            if (auto eq = a.find('='); eq != std::string::npos) {
                value = a.substr(eq + 1);
                a = a.substr(0, eq);
                hasValue = true;
            }
            const bool wantsValue = std::find(valued.begin(), valued.end(), a) != valued.end();
            if (wantsValue && !hasValue) {
                if (i + 1 >= argc)
                    throw UsageError(a + " needs a value");
                value = argv[++i];
            } else if (!wantsValue && hasValue) {
                throw UsageError(a + " takes no value");
            }
            args.options[a] = value;
        } else if (args.command.empty()) {
            args.command = a;
        } else {
            args.positional.push_back(a);
        }
    }
    return args;
}

std::FILE* eventStream(const Args& args)
{
    const std::string mode = args.value("--events", "auto");
    if (mode == "stdout")
        return stdout;
    if (mode == "none")
        return nullptr;
    if (mode != "auto")
        throw UsageError("--events must be stdout, none or auto, not \"" + mode + "\"");
    return isatty(STDOUT_FILENO) ? nullptr : stdout;
}

int guarded(run::EventSink& events, const std::function<int()>& body)
{
    const auto fail = [&](const char* kind, const std::string& message, nlohmann::ordered_json extra, int code) {
        std::fprintf(stderr, "strata-engine: error: %s\n", message.c_str());
        try {
            nlohmann::ordered_json fields{{"kind", kind}, {"message", message}, {"fatal", true}};
            if (extra.is_object())
                fields.update(extra);
            events.emit(schema::event::kError, fields);
            events.flush();
        } catch (const std::exception& e) {
            // The message is on stderr already; the stream just lacks the event.
            std::fprintf(stderr, "strata-engine: cannot write the error event: %s\n", e.what());
        }
        return code;
    };
    try {
        return body();
    } catch (const UsageError& e) {
        return fail("usage", e.what(), nullptr, kUsage);
    } catch (const ConfigError& e) {
        nlohmann::ordered_json problems = nlohmann::ordered_json::array();
        for (const auto& p : e.problems())
            problems.push_back({{"path", p.path}, {"message", p.message}});
        return fail(e.kind(), e.what(), {{"problems", problems}}, kUsage);
    } catch (const ResumeError& e) {
        nlohmann::ordered_json differences = nlohmann::ordered_json::array();
        for (const auto& d : e.differences())
            differences.push_back({{"field", d.field}, {"checkpoint", d.checkpoint}, {"experiment", d.experiment}});
        return fail(e.kind(), e.what(), {{"differences", differences}, {"choices", e.choices()}}, kUsage);
    } catch (const ParseError& e) {
        return fail(e.kind(), e.what(), {{"line", e.line()}, {"column", e.column()}}, kUsage);
    } catch (const Error& e) {
        return fail(e.kind(), e.what(), nullptr, kFailed);
    } catch (const std::bad_alloc&) {
        return fail("memory", "out of memory", nullptr, kFailed);
    } catch (const std::exception& e) {
        return fail("internal", e.what(), nullptr, kFailed);
    }
}

} // namespace strata::cli
