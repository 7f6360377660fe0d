// A CIFAR-10 binary batch (records of 1 label byte and 3072 pixel bytes), as loadCifar10
// reads it.

#include "fuzz_support.h"

#include "strata/data/loaders.h"

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static fuzz::MemoryFile batch("data_batch_1.bin");
    batch.write(fuzz::text(data, size));
    fuzz::answers([&] {
        const data::Dataset dataset = data::loadCifar10({batch.path()}, true);
        if (dataset.size() * 3073 != static_cast<int64_t>(size))
            fuzz::fail("a CIFAR-10 batch of " + std::to_string(size) + " bytes gave " +
                       std::to_string(dataset.size()) + " images");
    });
    return 0;
}
