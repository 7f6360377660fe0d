#pragma once
// The run directory: everything one run leaves behind (experiment copy, event files,
// checkpoints, final weights, model summary).

#include "strata/schema/experiment.h"

#include <string>

namespace strata::run {

class RunDirectory {
public:
    // Creates `path` and its parents and checks that files can be written there; throws
    // IoError naming the path and the reason otherwise.
    explicit RunDirectory(std::string path);

    // runs/<name>-<YYYYmmdd-HHMMSS> under the current directory.
    static std::string defaultPath(const std::string& experimentName);

    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const;
    std::string checkpointDir() const { return file("checkpoints"); }
    // Writes `text` to `name` atomically (rundir/atomic_file.h); IoError naming it otherwise.
    void writeFile(const std::string& name, const std::string& text) const;

private:
    std::string m_path;
};

// Now, local time, as run directories and set-aside folders are named: "20261126-163501".
std::string localTimeStamp();

// experiment.strata.json: the experiment as the run trains it, data paths made absolute so
// the copy stands on its own. Written once the run has decided where it starts (rundir/resume.h):
// a refused resume leaves the copy that describes the checkpoints.
void writeExperimentCopy(const RunDirectory& runDir, schema::Experiment experiment);

} // namespace strata::run
