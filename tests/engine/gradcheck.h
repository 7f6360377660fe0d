#pragma once
// Helpers for numerical gradient checks: float tensors <-> double vectors, seeded random
// values, central finite differences in double, and error measures.
//
// The method: the engine computes in float; a double-precision reference of the same
// function is differentiated numerically (central differences, so the numeric gradient is
// accurate to ~1e-8 relative), and the engine's analytic gradient must match it within a
// tolerance a wrong factor or sign cannot pass.

#include "strata/core/rng.h"
#include "strata/tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gradcheck {

inline std::vector<double> toDouble(const strata::Tensor& t)
{
    const auto v = t.values();
    return std::vector<double>(v.begin(), v.end());
}

// A float tensor holding `values` (rounded to float).
inline strata::Tensor toTensor(const strata::Shape& shape, const std::vector<double>& values)
{
    strata::Tensor t(shape);
    std::transform(values.begin(), values.end(), t.data(), [](double v) { return static_cast<float>(v); });
    return t;
}

// Doubles that are exactly representable as floats, so the engine and the reference see the
// same numbers.
inline std::vector<double> uniformValues(strata::Rng& rng, size_t n, double lo, double hi)
{
    std::vector<double> v(n);
    for (double& x : v)
        x = static_cast<float>(rng.uniform(lo, hi));
    return v;
}

// Values with magnitude in [minMagnitude, maxMagnitude] and random sign (away from 0: keeps
// inputs off the kink of relu).
inline std::vector<double> signedValues(strata::Rng& rng, size_t n, double minMagnitude, double maxMagnitude)
{
    std::vector<double> v(n);
    for (double& x : v) {
        const double m = rng.uniform(minMagnitude, maxMagnitude);
        x = static_cast<float>(rng.uniform() < 0.5 ? -m : m);
    }
    return v;
}

// Distinct values spaced `gap` apart, in random order, centred on 0 (no ties for max pooling).
inline std::vector<double> distinctValues(strata::Rng& rng, size_t n, double gap)
{
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>((static_cast<double>(i) - static_cast<double>(n) / 2) * gap);
    for (size_t i = n; i > 1; --i)
        std::swap(v[i - 1], v[rng.below(i)]);
    return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b)
{
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        s += a[i] * b[i];
    return s;
}

inline double maxAbs(const std::vector<double>& v)
{
    double m = 0;
    for (double x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

// Central differences of the scalar function f at x: (f(x + eps e_i) - f(x - eps e_i)) / 2 eps.
inline std::vector<double> numericGradient(const std::function<double(const std::vector<double>&)>& f,
                                           std::vector<double> x, double eps = 1e-4)
{
    std::vector<double> g(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const double saved = x[i];
        x[i] = saved + eps;
        const double plus = f(x);
        x[i] = saved - eps;
        const double minus = f(x);
        x[i] = saved;
        g[i] = (plus - minus) / (2 * eps);
    }
    return g;
}

struct Comparison {
    double error = 0;   // the worst normalized difference
    size_t index = 0;   // where
    double actual = 0;  // the engine's value there
    double expected = 0;
    std::string str() const
    {
        std::ostringstream s;
        s.precision(9);
        s << "error " << error << " at [" << index << "]: got " << actual << ", expected " << expected;
        return s.str();
    }
};

// max_i |a_i - e_i| / max(|a_i|, |e_i|, floor), floor = floorFraction * max_j |e_j|: a
// relative error per element, where elements much smaller than the largest are compared
// against the largest (their float rounding is set by it). A factor 2 gives 0.5, a sign
// error 2, a missing element 1.
inline Comparison compare(const std::vector<double>& actual, const std::vector<double>& expected,
                          double floorFraction = 1e-2)
{
    Comparison c;
    if (actual.size() != expected.size()) {
        c.error = std::numeric_limits<double>::infinity();
        return c;
    }
    const double floor = std::max(floorFraction * maxAbs(expected), 1e-30);
    for (size_t i = 0; i < actual.size(); ++i) {
        const double d = std::fabs(actual[i] - expected[i]);
        const double e = d / std::max({std::fabs(actual[i]), std::fabs(expected[i]), floor});
        if (!(e <= c.error)) { // NaN counts as the worst
            c = {std::isnan(e) ? std::numeric_limits<double>::infinity() : e, i, actual[i], expected[i]};
            if (std::isnan(e))
                break;
        }
    }
    return c;
}

} // namespace gradcheck
