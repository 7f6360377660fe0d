#pragma once
// Helpers the distribution tests share: ranks as threads, free ports, weight comparison.

#include "../free_ports.h"

#include <cmath>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace testing {

// Runs body(rank) on `size` threads; what each threw, by rank ("" when nothing).
inline std::vector<std::string> onRanks(int size, const std::function<void(int)>& body)
{
    std::vector<std::string> errors(static_cast<size_t>(size));
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
        threads.emplace_back([&, r] {
            try {
                body(r);
            } catch (const std::exception& e) {
                errors[static_cast<size_t>(r)] = e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    return errors;
}

// ||a - b|| / ||b||.
inline double relativeError(const std::vector<float>& a, const std::vector<float>& b)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(diff / norm);
}

} // namespace testing
