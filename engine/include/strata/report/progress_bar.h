#pragma once
// Keras-style progress on a terminal:
//   Epoch 1/5
//   1200/1875 [==================>...........] - ETA: 3s - loss: 0.5123 - accuracy: 0.8210
// When the stream is not a terminal only the line that ends each epoch is written.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace strata::run {

using NamedValues = std::vector<std::pair<std::string, double>>;

class ProgressBar {
public:
    ProgressBar(std::FILE* out, bool interactive);

    void startEpoch(int64_t epoch, int64_t epochs, int64_t steps, int64_t firstStep);
    // Redraws at most every 100 ms.
    void update(int64_t stepsDone, const NamedValues& values);
    void endEpoch(int64_t stepsDone, const NamedValues& values);
    // A line of its own (clears a partly drawn bar first).
    void message(const std::string& text);

private:
    std::string line(int64_t stepsDone, const NamedValues& values, bool final) const;
    void clear();

    std::FILE* m_out;
    bool m_interactive;
    int64_t m_epoch = 0, m_epochs = 0, m_steps = 0, m_firstStep = 0;
    std::chrono::steady_clock::time_point m_start, m_lastDraw;
    bool m_drawn = false;
};

} // namespace strata::run
