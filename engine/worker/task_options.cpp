#include "task_options.h"

#include "strata/core/error.h"

#include <filesystem>

namespace strata::cli {

namespace fs = std::filesystem;

std::vector<std::string> trainOptionsOf(const Args& args, bool checkpointChoice)
{
    std::vector<std::string> options;
    for (const char* option : {"--event-interval-ms", "--device-interval-ms"})
        if (args.has(option)) {
            args.number(option, 0);
            options.insert(options.end(), {option, args.value(option)});
        }
    if (checkpointChoice)
        for (const char* flag : {"--fresh", "--weights-only"})
            if (args.has(flag))
                options.push_back(flag);
    if (const std::string launch = args.value("--launch", ""); !launch.empty())
        options.insert(options.end(), {"--launch", launch});
    return options;
}

int64_t fileSize(const std::string& path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    return ec ? 0 : static_cast<int64_t>(size);
}

std::string thisExecutable()
{
    std::error_code ec;
    const auto path = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw IoError("cannot find this executable (/proc/self/exe): " + ec.message());
    return path.string();
}

} // namespace strata::cli
