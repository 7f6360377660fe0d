#pragma once
// Readers for the data sources an experiment can name. Every failure is a DataError naming
// the file and what is wrong with it (missing, truncated, bad magic number, ...).

#include "strata/data/dataset.h"
#include "strata/schema/experiment.h"

#include <string>
#include <vector>

namespace strata::data {

// IDX files (the MNIST family): unsigned-byte images of any rank and their labels,
// gzip-compressed or plain. Images become features of shape (rows, cols), labels class indices.
Dataset loadIdx(const std::string& imagesFile, const std::string& labelsFile, bool normalize);

// CIFAR-10 binary batches (data_batch_N.bin, test_batch.bin): records of 1 label byte and
// 3072 pixel bytes in planes (R, G, B), converted to (32, 32, 3) channels-last images.
Dataset loadCifar10(const std::vector<std::string>& files, bool normalize);

// Labelled text: a file of "label<TAB>text" lines, or a directory with one sub-directory of
// text files per class (like IMDb's aclImdb/train/{neg,pos}). Text is lowercased, HTML tags
// dropped, and split into words; the vocabulary (0: padding, 1: out-of-vocabulary, then the
// most frequent words of the training split) comes from `train`; sequences are cut or
// zero-padded to `maxLength`. Two classes give 0/1 labels; class names map to indices in
// sorted order.
DatasetSplits loadText(const std::string& train, const std::string& test, int64_t vocabSize, int64_t maxLength);

// Synthetic data from the seeds: "regression" (a learnable nonlinear target plus noise),
// "random_regression" (np.random.random features and targets) and "classification"
// (Gaussian clusters, one per class). Deterministic in `seed`.
DatasetSplits makeSynthetic(const schema::DataSourceSpec& source, uint64_t seed);

// Loads what `experiment.data` names (paths resolved against the experiment's directory),
// applying train_limit / test_limit.
DatasetSplits loadDatasets(const schema::Experiment& experiment);

} // namespace strata::data
