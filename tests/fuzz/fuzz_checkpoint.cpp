// A checkpoint file (rundir/checkpoint.h: magic, version, JSON header, tensors), as a resumed run
// or the evaluator reads it. An accepted checkpoint cannot hold more tensor bytes than the
// file has.

#include "fuzz_support.h"

#include "strata/rundir/checkpoint.h"

#include <cstring>

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static fuzz::MemoryFile file("ckpt-0000000001.strata");
    file.write(fuzz::text(data, size));
    run::Checkpoint checkpoint;
    if (!fuzz::answers([&] { checkpoint = run::readCheckpoint(file.path()); }))
        return 0;
    size_t bytes = 0;
    for (const auto& [name, tensor] : checkpoint.tensors)
        bytes += tensor.bytes();
    if (bytes > size)
        fuzz::fail("a checkpoint of " + std::to_string(size) + " bytes gave " + std::to_string(bytes) +
                   " bytes of tensors");
    return 0;
}
