// Labelled text ("label<TAB>text" lines), as loadText reads a training and a test file: the
// classes, the vocabulary of the training split and both splits encoded. The input's first
// two bytes choose the vocabulary size and sequence length; the rest is the training file,
// and its second half also the test file (whose labels may then be unknown).

#include "fuzz_support.h"

#include "strata/data/loaders.h"

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static fuzz::MemoryFile train("train.tsv"), test("test.tsv");
    if (size < 2)
        return 0;
    const int64_t vocabSize = 2 + data[0] % 64;
    const int64_t maxLength = 1 + data[1] % 32;
    const std::string_view text = fuzz::text(data + 2, size - 2);
    train.write(text);
    test.write(text.substr(text.size() / 2));
    fuzz::answers([&] {
        const data::DatasetSplits splits = data::loadText(train.path(), test.path(), vocabSize, maxLength);
        if (!splits.train || splits.train->size() <= 0)
            fuzz::fail("a text dataset without training examples was accepted");
    });
    return 0;
}
