// A checkpoint writer for the crash-consistency tests, which kill it or make its calls fail
// (fault_injection.cpp). Every checkpoint holds one tensor of `megabytes` whose values all
// equal its step, so a reader can tell a whole checkpoint from a mix of two.
//   checkpoint_writer loop DIR MEGABYTES   prints "ready", then saves step latest+1, latest+2,
//                                          ... until killed
//   checkpoint_writer save DIR STEP MEGABYTES   saves one checkpoint at STEP
// After each save it prints "saved STEP" (flushed); a failed save prints "error: MESSAGE" and
// exits 1.

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void save(strata::run::CheckpointDirectory& dir, int64_t step, double megabytes)
{
    strata::run::Checkpoint c;
    c.step = step;
    c.extra["written_by"] = "checkpoint_writer";
    strata::Tensor values(strata::Shape({static_cast<int64_t>(megabytes * (1 << 20) / sizeof(float))}));
    for (int64_t i = 0; i < values.numel(); ++i)
        values.data()[i] = static_cast<float>(step);
    c.tensors.emplace_back("values", std::move(values));
    dir.save(c);
    std::printf("saved %lld\n", static_cast<long long>(step));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    try {
        if (mode == "loop" && argc == 4) {
            strata::run::CheckpointDirectory dir(argv[2]);
            const auto latest = dir.latest();
            std::printf("ready\n"); // the test's random delay starts here, past the start-up
            std::fflush(stdout);
            for (int64_t step = latest ? latest->step + 1 : 1;; ++step)
                save(dir, step, std::atof(argv[3]));
        }
        if (mode == "save" && argc == 5) {
            strata::run::CheckpointDirectory dir(argv[2]);
            save(dir, std::atoll(argv[3]), std::atof(argv[4]));
            return 0;
        }
    } catch (const strata::Error& e) {
        std::printf("error: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "usage: checkpoint_writer loop DIR MEGABYTES | save DIR STEP MEGABYTES\n");
    return 2;
}
