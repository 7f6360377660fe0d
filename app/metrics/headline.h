#pragma once
// The figures a dashboard shows in large type, as Keras' progress line and W&B's run summary
// do: the latest training loss and accuracy, the latest epoch's validation loss and accuracy,
// the job's samples per second, and the test metrics once the run has them. NaN where the
// run has not reported it (yet).

#include "app/metrics/metrics_store.h"

#include <QString>

#include <limits>

namespace strata::app {

struct Headline {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double loss = kNone, validationLoss = kNone, testLoss = kNone;
    QString accuracyName; // "accuracy", "sparse_categorical_accuracy"; empty: the model has none
    double accuracy = kNone, validationAccuracy = kNone, testAccuracy = kNone;
    double samplesPerSec = kNone; // the job's (every training task's latest window, summed)
    int epoch = 0, epochs = 0;    // epochs finished, and in the run (0: not known)
};

Headline headline(const MetricsStore& store);

} // namespace strata::app
