#include "strata/rundir/run_directory.h"

#include "strata/core/error.h"
#include "strata/rundir/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

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

std::string localTimeStamp()
{
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    return stamp;
}

std::string RunDirectory::defaultPath(const std::string& experimentName)
{
    return (fs::path("runs") / (experimentName + "-" + localTimeStamp())).string();
}

std::string RunDirectory::file(const std::string& name) const { return (fs::path(m_path) / name).string(); }

void RunDirectory::writeFile(const std::string& name, const std::string& text) const
{
    AtomicFile out(file(name));
    out.write(text);
    out.commit();
}

void writeExperimentCopy(const RunDirectory& runDir, schema::Experiment e)
{
    auto& s = e.data.source;
    for (std::string* path : {&s.dir, &s.trainImages, &s.trainLabels, &s.testImages, &s.testLabels, &s.train, &s.test})
        *path = schema::resolvePath(e, *path);
    e.training.initialWeights = schema::resolvePath(e, e.training.initialWeights);
    runDir.writeFile("experiment.strata.json", schema::experimentToJson(e).dump(2) + "\n");
}

} // namespace strata::run
