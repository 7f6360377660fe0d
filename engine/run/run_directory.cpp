#include "strata/run/run_directory.h"

#include "strata/core/error.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace strata::run {

namespace fs = std::filesystem;

RunDirectory::RunDirectory(std::string path) : m_path(std::move(path))
{
    std::error_code ec;
    fs::create_directories(m_path, ec);
    if (ec)
        throw IoError("cannot create run directory " + m_path + ": " + ec.message());
    if (!fs::is_directory(m_path))
        throw IoError("cannot use run directory " + m_path + ": it is not a directory");
    const std::string probe = file(".write-test");
    std::FILE* f = std::fopen(probe.c_str(), "w");
    if (!f)
        throw IoError("cannot write in run directory " + m_path + ": " + std::strerror(errno));
    std::fclose(f);
    fs::remove(probe, ec);
}

std::string RunDirectory::defaultPath(const std::string& experimentName)
{
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    return (fs::path("runs") / (experimentName + "-" + stamp)).string();
}

std::string RunDirectory::file(const std::string& name) const { return (fs::path(m_path) / name).string(); }

void RunDirectory::writeFile(const std::string& name, const std::string& text) const
{
    const std::string target = file(name);
    // A temporary of this process's own: several tasks of a job may write the same file at once.
    const std::string tmp = target + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out)
            throw IoError("cannot write " + tmp + ": " + std::strerror(errno));
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec)
        throw IoError("cannot write " + target + ": " + ec.message());
}

} // namespace strata::run
