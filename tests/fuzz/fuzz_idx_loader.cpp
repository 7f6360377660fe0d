// IDX files (the MNIST family), as loadIdx reads an images file and a labels file, plain or
// gzip-compressed. The input is both files: a 2-byte little-endian length L, then the labels
// file (L bytes), then the images file (the rest); see make_seeds.py.

#include "fuzz_support.h"

#include "strata/data/loaders.h"

#include <algorithm>

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static fuzz::MemoryFile images("images-idx3-ubyte"), labels("labels-idx1-ubyte");
    if (size < 2)
        return 0;
    const size_t labelBytes = std::min<size_t>(data[0] | (data[1] << 8), size - 2);
    labels.write(fuzz::text(data + 2, labelBytes));
    images.write(fuzz::text(data + 2 + labelBytes, size - 2 - labelBytes));
    fuzz::answers([&] {
        const data::Dataset dataset = data::loadIdx(images.path(), labels.path(), true);
        if (dataset.size() <= 0)
            fuzz::fail("an IDX dataset without examples was accepted");
    });
    return 0;
}
