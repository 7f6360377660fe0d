// `strata-engine probe | validate | summary`: describe the host (and check what a launcher
// needs there), check an experiment, show a model.

#include "cli.h"
#include "host_checks.h"

#include "strata/core/error.h"
#include "strata/distribute/host_devices.h"
#include "strata/report/hello_event.h"
#include "strata/schema/events.h"
#include "strata/schema/experiment.h"
#include "strata/tensor/gpu.h"

#include <cstdio>
#include <iostream>
#include <iterator>

namespace strata::cli {

namespace {
const std::string& experimentArgument(const Args& args)
{
    if (args.positional.size() != 1)
        throw UsageError(args.command + " needs exactly one experiment file");
    return args.positional[0];
}
} // namespace

int probeCommand(const Args& args)
{
    run::EventSink events("probe", stdout);
    events.emit(schema::event::kHello, run::helloFields());
    if (!args.has("--check"))
        return kOk;
    return guarded(events, [&] {
        const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
        nlohmann::ordered_json request;
        try {
            request = nlohmann::ordered_json::parse(text);
        } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range for a number beyond a double
            throw UsageError(std::string("probe --check reads a JSON object on standard input: ") + e.what());
        }
        events.emit(schema::event::kCheck, checkHost(request));
        return static_cast<int>(kOk);
    });
}

int devicesCommand(const Args& args)
{
    run::EventSink events("devices", nullptr);
    return guarded(events, [&] {
        int64_t logical = 0;
        if (args.has("--logical-cpu-devices")) {
            try {
                logical = std::stoll(args.value("--logical-cpu-devices"));
            } catch (const std::exception&) {
                logical = -1;
            }
            if (logical < 1)
                throw UsageError("--logical-cpu-devices needs a positive number");
        }
        const auto devices = distribute::HostDevices::probe(logical).describe();
        if (args.has("--json")) {
            for (const auto& d : devices)
                std::printf("%s\n", d.dump().c_str());
            return static_cast<int>(kOk);
        }
        std::printf("%-8s %-5s %-6s %s\n", "DEVICE", "KIND", "CORES", "DESCRIPTION");
        for (const auto& d : devices)
            std::printf("%-8s %-5s %-6s %s\n", d["name"].get<std::string>().c_str(), d["kind"].get<std::string>().c_str(),
                        d.contains("cores") ? std::to_string(d["cores"].get<int>()).c_str() : "-",
                        d["description"].get<std::string>().c_str());
        if (const std::string why = gpu::whyNoGpus(); !why.empty())
            std::printf("No GPU: %s.\n", why.c_str());
        // Listing devices is asking for the GPU backend: it is loaded here even without a GPU.
        std::printf("GPU backend: %s\n", gpu::backendDescription().c_str());
        return static_cast<int>(kOk);
    });
}

int validateCommand(const Args& args)
{
    const bool json = args.has("--json");
    run::EventSink events("validate", nullptr);
    const auto report = [&](bool ok, nlohmann::ordered_json problems) {
        if (json)
            std::printf("%s\n", nlohmann::ordered_json{{"ok", ok}, {"problems", problems}}.dump().c_str());
    };
    return guarded(events, [&] {
        const std::string& file = experimentArgument(args);
        try {
            const schema::Experiment e = schema::loadExperiment(file);
            report(true, nlohmann::ordered_json::array());
            if (!json) {
                for (const auto& note : e.notes)
                    std::fprintf(stderr, "%s: note: %s\n", file.c_str(), note.str().c_str());
                const auto shapes = schema::inferShapes(e.model);
                std::printf("%s: ok (%s, %lld parameters)\n", file.c_str(), e.strategy.type.c_str(),
                            static_cast<long long>(shapes.totalParams));
            }
            return static_cast<int>(kOk);
        } catch (const ConfigError& e) {
            nlohmann::ordered_json problems = nlohmann::ordered_json::array();
            for (const auto& p : e.problems())
                problems.push_back({{"path", p.path}, {"message", p.message}});
            report(false, problems);
            if (!json)
                for (const auto& p : e.problems())
                    std::fprintf(stderr, "%s: %s\n", file.c_str(), p.str().c_str());
            return static_cast<int>(kUsage);
        } catch (const ParseError& e) {
            report(false, nlohmann::ordered_json::array({{{"path", ""}, {"message", e.what()}}}));
            if (!json)
                std::fprintf(stderr, "%s\n", e.what());
            return static_cast<int>(kUsage);
        }
    });
}

int summaryCommand(const Args& args)
{
    run::EventSink events("summary", nullptr);
    return guarded(events, [&] {
        const schema::Experiment e = schema::loadExperiment(experimentArgument(args));
        std::fputs(schema::summary(e.model, schema::checkedShapes(e.model)).c_str(), stdout);
        return static_cast<int>(kOk);
    });
}

} // namespace strata::cli
