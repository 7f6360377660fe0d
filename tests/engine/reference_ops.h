#pragma once
// Naive double-precision reference implementations of the engine's layers, activations and
// losses, written from the Keras/TensorFlow definitions (not from the engine's code). Tests
// compare the engine's float results with these, and differentiate them numerically.
//
// Layout conventions are the engine's (and Keras'): row-major, NHWC images, Dense kernels
// (in, units), Conv2D kernels (kh, kw, in_channels, filters).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace reference {

using Values = std::vector<double>;

inline size_t at(int64_t i) { return static_cast<size_t>(i); }

// --- Activations --------------------------------------------------------------------------

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Applies `name` (linear, relu, sigmoid, tanh, softmax) in place; softmax over rows of `cols`.
inline void activate(const std::string& name, Values& v, int64_t cols)
{
    if (name == "linear")
        return;
    if (name == "relu") {
        for (double& x : v)
            x = std::max(x, 0.0);
    } else if (name == "sigmoid") {
        for (double& x : v)
            x = sigmoid(x);
    } else if (name == "tanh") {
        for (double& x : v)
            x = std::tanh(x);
    } else if (name == "softmax") {
        for (size_t r = 0; r < v.size() / at(cols); ++r) {
            double* row = v.data() + r * at(cols);
            const double m = *std::max_element(row, row + cols);
            double sum = 0;
            for (int64_t j = 0; j < cols; ++j)
                sum += row[j] = std::exp(row[j] - m);
            for (int64_t j = 0; j < cols; ++j)
                row[j] /= sum;
        }
    } else {
        throw std::invalid_argument("reference: unknown activation " + name);
    }
}

// --- Layers -------------------------------------------------------------------------------

// y = act(x · kernel + bias) over rows of `in` values (`bias` empty: no bias).
inline Values dense(const Values& x, int64_t in, const Values& kernel, const Values& bias, int64_t units,
                    const std::string& activation)
{
    const int64_t rows = static_cast<int64_t>(x.size()) / in;
    Values y(at(rows * units));
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t u = 0; u < units; ++u) {
            double s = bias.empty() ? 0.0 : bias[at(u)];
            for (int64_t i = 0; i < in; ++i)
                s += x[at(r * in + i)] * kernel[at(i * units + u)];
            y[at(r * units + u)] = s;
        }
    }
    activate(activation, y, units);
    return y;
}

// One spatial axis of a sliding window with TensorFlow's padding rules: "valid" keeps the
// windows that fit; "same" gives ceil(size / stride) outputs and pads the total the windows
// need, the extra element going after (bottom/right).
struct Axis {
    int64_t out = 0;
    int64_t padBefore = 0;
};
inline Axis windowAxis(int64_t size, int64_t window, int64_t stride, bool same)
{
    if (!same)
        return {size < window ? 0 : (size - window) / stride + 1, 0};
    const int64_t out = (size + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((out - 1) * stride + window - size, 0);
    return {out, total / 2};
}

struct Image {
    int64_t batch = 0, height = 0, width = 0, channels = 0;
};

struct Window {
    int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
    bool same = false;
};

// Conv2D (cross-correlation, as TensorFlow), NHWC; returns (batch, outH, outW, filters).
inline Values conv2d(const Values& x, const Image& im, const Values& kernel, const Values& bias, int64_t filters,
                     const Window& w, const std::string& activation, Image* outShape = nullptr)
{
    const Axis ah = windowAxis(im.height, w.kernelH, w.strideH, w.same);
    const Axis aw = windowAxis(im.width, w.kernelW, w.strideW, w.same);
    Values y(at(im.batch * ah.out * aw.out * filters));
    for (int64_t n = 0; n < im.batch; ++n)
        for (int64_t oh = 0; oh < ah.out; ++oh)
            for (int64_t ow = 0; ow < aw.out; ++ow)
                for (int64_t f = 0; f < filters; ++f) {
                    double s = bias.empty() ? 0.0 : bias[at(f)];
                    for (int64_t kh = 0; kh < w.kernelH; ++kh) {
                        const int64_t ih = oh * w.strideH + kh - ah.padBefore;
                        if (ih < 0 || ih >= im.height)
                            continue;
                        for (int64_t kw = 0; kw < w.kernelW; ++kw) {
                            const int64_t iw = ow * w.strideW + kw - aw.padBefore;
                            if (iw < 0 || iw >= im.width)
                                continue;
                            for (int64_t c = 0; c < im.channels; ++c)
                                s += x[at(((n * im.height + ih) * im.width + iw) * im.channels + c)] *
                                     kernel[at(((kh * w.kernelW + kw) * im.channels + c) * filters + f)];
                        }
                    }
                    y[at(((n * ah.out + oh) * aw.out + ow) * filters + f)] = s;
                }
    activate(activation, y, filters);
    if (outShape)
        *outShape = {im.batch, ah.out, aw.out, filters};
    return y;
}

// MaxPooling2D, NHWC: maximum over the window's positions inside the image (padding never wins).
inline Values maxPool2d(const Values& x, const Image& im, const Window& w, Image* outShape = nullptr)
{
    const Axis ah = windowAxis(im.height, w.kernelH, w.strideH, w.same);
    const Axis aw = windowAxis(im.width, w.kernelW, w.strideW, w.same);
    Values y(at(im.batch * ah.out * aw.out * im.channels));
    for (int64_t n = 0; n < im.batch; ++n)
        for (int64_t oh = 0; oh < ah.out; ++oh)
            for (int64_t ow = 0; ow < aw.out; ++ow)
                for (int64_t c = 0; c < im.channels; ++c) {
                    double m = -std::numeric_limits<double>::infinity();
                    for (int64_t kh = 0; kh < w.kernelH; ++kh) {
                        const int64_t ih = oh * w.strideH + kh - ah.padBefore;
                        for (int64_t kw = 0; kw < w.kernelW; ++kw) {
                            const int64_t iw = ow * w.strideW + kw - aw.padBefore;
                            if (ih >= 0 && ih < im.height && iw >= 0 && iw < im.width)
                                m = std::max(m, x[at(((n * im.height + ih) * im.width + iw) * im.channels + c)]);
                        }
                    }
                    y[at(((n * ah.out + oh) * aw.out + ow) * im.channels + c)] = m;
                }
    if (outShape)
        *outShape = {im.batch, ah.out, aw.out, im.channels};
    return y;
}

// Smallest gap, over all windows, between the largest and second-largest value: where it is
// large, max pooling is differentiable with a margin (no ties for finite differences to cross).
inline double maxPoolMargin(const Values& x, const Image& im, const Window& w)
{
    const Axis ah = windowAxis(im.height, w.kernelH, w.strideH, w.same);
    const Axis aw = windowAxis(im.width, w.kernelW, w.strideW, w.same);
    double margin = std::numeric_limits<double>::infinity();
    for (int64_t n = 0; n < im.batch; ++n)
        for (int64_t oh = 0; oh < ah.out; ++oh)
            for (int64_t ow = 0; ow < aw.out; ++ow)
                for (int64_t c = 0; c < im.channels; ++c) {
                    Values window;
                    for (int64_t kh = 0; kh < w.kernelH; ++kh)
                        for (int64_t kw = 0; kw < w.kernelW; ++kw) {
                            const int64_t ih = oh * w.strideH + kh - ah.padBefore;
                            const int64_t iw = ow * w.strideW + kw - aw.padBefore;
                            if (ih >= 0 && ih < im.height && iw >= 0 && iw < im.width)
                                window.push_back(x[at(((n * im.height + ih) * im.width + iw) * im.channels + c)]);
                        }
                    std::sort(window.rbegin(), window.rend());
                    if (window.size() > 1)
                        margin = std::min(margin, window[0] - window[1]);
                }
    return margin;
}

// (batch, steps, features) -> (batch, features): mean over steps.
inline Values globalAveragePooling1d(const Values& x, int64_t batch, int64_t steps, int64_t features)
{
    Values y(at(batch * features), 0.0);
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t s = 0; s < steps; ++s)
            for (int64_t f = 0; f < features; ++f)
                y[at(n * features + f)] += x[at((n * steps + s) * features + f)] / static_cast<double>(steps);
    return y;
}

// Conv1D (cross-correlation), (batch, steps, channels) with kernel (k, channels, filters):
// "valid", "same" (TF's: ceil(steps / stride) outputs, the extra padding after) or "causal"
// (k - 1 zeros before the sequence, then "valid"). Sets `outSteps`.
inline Values conv1d(const Values& x, int64_t batch, int64_t steps, int64_t channels, const Values& kernel,
                     const Values& bias, int64_t filters, int64_t k, int64_t stride, const std::string& padding,
                     const std::string& activation, int64_t* outSteps = nullptr)
{
    int64_t out = 0, before = 0;
    if (padding == "causal") {
        before = k - 1;
        out = (steps + before - k) / stride + 1;
    } else {
        const Axis a = windowAxis(steps, k, stride, padding == "same");
        out = a.out;
        before = a.padBefore;
    }
    Values y(at(batch * out * filters));
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t o = 0; o < out; ++o)
            for (int64_t f = 0; f < filters; ++f) {
                double s = bias.empty() ? 0.0 : bias[at(f)];
                for (int64_t j = 0; j < k; ++j) {
                    const int64_t t = o * stride + j - before;
                    if (t < 0 || t >= steps)
                        continue;
                    for (int64_t c = 0; c < channels; ++c)
                        s += x[at((n * steps + t) * channels + c)] * kernel[at((j * channels + c) * filters + f)];
                }
                y[at((n * out + o) * filters + f)] = s;
            }
    activate(activation, y, filters);
    if (outSteps)
        *outSteps = out;
    return y;
}

// AveragePooling2D, NHWC: the mean of the window's positions inside the image (TF's "same"
// divides by that count, not by the window's size).
inline Values averagePool2d(const Values& x, const Image& im, const Window& w, Image* outShape = nullptr)
{
    const Axis ah = windowAxis(im.height, w.kernelH, w.strideH, w.same);
    const Axis aw = windowAxis(im.width, w.kernelW, w.strideW, w.same);
    Values y(at(im.batch * ah.out * aw.out * im.channels));
    for (int64_t n = 0; n < im.batch; ++n)
        for (int64_t oh = 0; oh < ah.out; ++oh)
            for (int64_t ow = 0; ow < aw.out; ++ow)
                for (int64_t c = 0; c < im.channels; ++c) {
                    double sum = 0;
                    int64_t count = 0;
                    for (int64_t kh = 0; kh < w.kernelH; ++kh) {
                        const int64_t ih = oh * w.strideH + kh - ah.padBefore;
                        for (int64_t kw = 0; kw < w.kernelW; ++kw) {
                            const int64_t iw = ow * w.strideW + kw - aw.padBefore;
                            if (ih >= 0 && ih < im.height && iw >= 0 && iw < im.width) {
                                sum += x[at(((n * im.height + ih) * im.width + iw) * im.channels + c)];
                                ++count;
                            }
                        }
                    }
                    y[at(((n * ah.out + oh) * aw.out + ow) * im.channels + c)] = sum / static_cast<double>(count);
                }
    if (outShape)
        *outShape = {im.batch, ah.out, aw.out, im.channels};
    return y;
}

// (batch, steps..., features) -> (batch, features): the maximum over all the middle axes.
inline Values globalMaxPooling(const Values& x, int64_t batch, int64_t steps, int64_t features)
{
    Values y(at(batch * features), -std::numeric_limits<double>::infinity());
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t s = 0; s < steps; ++s)
            for (int64_t f = 0; f < features; ++f)
                y[at(n * features + f)] = std::max(y[at(n * features + f)], x[at((n * steps + s) * features + f)]);
    return y;
}

// Layer normalization over rows of `width`: (x - mean) / sqrt(var + epsilon) * gamma + beta,
// var the population variance (Keras' LayerNormalization, axis=-1). Empty gamma: 1; beta: 0.
inline Values layerNormalization(const Values& x, int64_t width, double epsilon, const Values& gamma,
                                 const Values& beta)
{
    Values y(x.size());
    for (size_t r = 0; r < x.size() / at(width); ++r) {
        const double* row = x.data() + r * at(width);
        double mean = 0, var = 0;
        for (int64_t j = 0; j < width; ++j)
            mean += row[j] / static_cast<double>(width);
        for (int64_t j = 0; j < width; ++j)
            var += (row[j] - mean) * (row[j] - mean) / static_cast<double>(width);
        for (int64_t j = 0; j < width; ++j)
            y[r * at(width) + at(j)] = (row[j] - mean) / std::sqrt(var + epsilon) * (gamma.empty() ? 1.0 : gamma[at(j)]) +
                                      (beta.empty() ? 0.0 : beta[at(j)]);
    }
    return y;
}

// ZeroPadding2D, NHWC: zeros added top, bottom, left and right.
inline Values zeroPadding2d(const Values& x, const Image& im, int64_t top, int64_t bottom, int64_t left,
                            int64_t right, Image* outShape = nullptr)
{
    const Image o{im.batch, im.height + top + bottom, im.width + left + right, im.channels};
    Values y(at(o.batch * o.height * o.width * o.channels), 0.0);
    for (int64_t n = 0; n < im.batch; ++n)
        for (int64_t h = 0; h < im.height; ++h)
            for (int64_t w = 0; w < im.width; ++w)
                for (int64_t c = 0; c < im.channels; ++c)
                    y[at(((n * o.height + h + top) * o.width + w + left) * o.channels + c)] =
                        x[at(((n * im.height + h) * im.width + w) * im.channels + c)];
    if (outShape)
        *outShape = o;
    return y;
}

// Rows of `table` (vocab, dim) picked by integer ids.
inline Values embedding(const std::vector<int64_t>& ids, const Values& table, int64_t dim)
{
    Values y;
    for (int64_t id : ids)
        y.insert(y.end(), table.begin() + id * dim, table.begin() + (id + 1) * dim);
    return y;
}

// --- Recurrent layers (Keras' LSTM and GRU, from a zero initial state) -------------------
// x (batch, steps, features); kernel (features, g * units), recurrent (units, g * units), gates
// in Keras' order; `bias` empty: none. Returns (batch, units), or (batch, steps, units) with
// returnSequences.

// One elementwise activation of `name` (linear, relu, sigmoid, tanh).
inline double activateOne(const std::string& name, double v)
{
    Values one{v};
    activate(name, one, 1);
    return one[0];
}

// row (g * units) = x_t · kernel + h · recurrent (+ nothing else).
inline Values recurrentProjection(const double* x, int64_t features, const Values& kernel, const Values& h,
                                  const Values& recurrent, int64_t width)
{
    Values z(at(width), 0.0);
    for (int64_t j = 0; j < width; ++j) {
        for (int64_t f = 0; f < features; ++f)
            z[at(j)] += x[f] * kernel[at(f * width + j)];
        for (size_t k = 0; k < h.size(); ++k)
            z[at(j)] += h[k] * recurrent[k * at(width) + at(j)];
    }
    return z;
}

// LSTM: i, f, o = rec(z_i), rec(z_f), rec(z_o); c = f c + i act(z_c); h = o act(c).
inline Values lstm(const Values& x, int64_t batch, int64_t steps, int64_t features, const Values& kernel,
                   const Values& recurrent, const Values& bias, int64_t units, const std::string& activation,
                   const std::string& recurrentActivation, bool returnSequences)
{
    const int64_t w = 4 * units;
    Values y;
    for (int64_t n = 0; n < batch; ++n) {
        Values h(at(units), 0.0), c(at(units), 0.0);
        for (int64_t t = 0; t < steps; ++t) {
            Values z = recurrentProjection(&x[at((n * steps + t) * features)], features, kernel, h, recurrent, w);
            for (int64_t u = 0; u < units; ++u) {
                const auto b = [&](int64_t gate) { return bias.empty() ? 0.0 : bias[at(gate * units + u)]; };
                const double i = activateOne(recurrentActivation, z[at(u)] + b(0));
                const double f = activateOne(recurrentActivation, z[at(units + u)] + b(1));
                const double g = activateOne(activation, z[at(2 * units + u)] + b(2));
                const double o = activateOne(recurrentActivation, z[at(3 * units + u)] + b(3));
                c[at(u)] = f * c[at(u)] + i * g;
                h[at(u)] = o * activateOne(activation, c[at(u)]);
            }
            if (returnSequences || t == steps - 1)
                y.insert(y.end(), h.begin(), h.end());
        }
    }
    return y;
}

// GRU: z, r = rec(x_z + h R_z + b), rec(x_r + h R_r + b);
//   reset_after: hh = act(x_h + b_h + r * (h R_h + b_rh)), bias (2, 3 units) [input; recurrent];
//   otherwise:   hh = act(x_h + b_h + (r * h) R_h), bias (3 units);
// h = z h + (1 - z) hh.
inline Values gru(const Values& x, int64_t batch, int64_t steps, int64_t features, const Values& kernel,
                  const Values& recurrent, const Values& bias, int64_t units, const std::string& activation,
                  const std::string& recurrentActivation, bool resetAfter, bool returnSequences)
{
    const int64_t w = 3 * units;
    Values y;
    for (int64_t n = 0; n < batch; ++n) {
        Values h(at(units), 0.0);
        for (int64_t t = 0; t < steps; ++t) {
            const double* xt = &x[at((n * steps + t) * features)];
            const Values xw = recurrentProjection(xt, features, kernel, {}, recurrent, w);
            const Values hr = recurrentProjection(xt, 0, kernel, h, recurrent, w);
            const auto bIn = [&](int64_t j) { return bias.empty() ? 0.0 : bias[at(j)]; };
            const auto bRec = [&](int64_t j) { return bias.empty() || !resetAfter ? 0.0 : bias[at(w + j)]; };
            Values z(at(units)), r(at(units));
            for (int64_t u = 0; u < units; ++u) {
                z[at(u)] = activateOne(recurrentActivation, xw[at(u)] + bIn(u) + hr[at(u)] + bRec(u));
                r[at(u)] = activateOne(recurrentActivation,
                                       xw[at(units + u)] + bIn(units + u) + hr[at(units + u)] + bRec(units + u));
            }
            Values next(at(units));
            for (int64_t u = 0; u < units; ++u) {
                double recH = 0;
                if (resetAfter) {
                    recH = r[at(u)] * (hr[at(2 * units + u)] + bRec(2 * units + u));
                } else {
                    for (int64_t k = 0; k < units; ++k)
                        recH += r[at(k)] * h[at(k)] * recurrent[at(k * w + 2 * units + u)];
                }
                const double hh = activateOne(activation, xw[at(2 * units + u)] + bIn(2 * units + u) + recH);
                next[at(u)] = z[at(u)] * h[at(u)] + (1 - z[at(u)]) * hh;
            }
            h = next;
            if (returnSequences || t == steps - 1)
                y.insert(y.end(), h.begin(), h.end());
        }
    }
    return y;
}

// --- Losses (Keras definitions; each returns the SUM over the batch of per-example losses) ---
//
// Keras computes a per-element loss (per row of the last axis for cross-entropies, per value
// for mse and binary cross-entropy, averaged over the last axis) and averages everything
// left over the batch size ("sum_over_batch_size"). With `batch` examples, the per-example
// loss is therefore the mean of its element losses, and the sum over examples is
// batch * mean(all element losses).

constexpr double kEpsilon = 1e-7; // Keras' backend epsilon

inline double clip(double p) { return std::clamp(p, kEpsilon, 1.0 - kEpsilon); }

// Mean squared error: per example, mean over all its values.
inline double mse(const Values& pred, const Values& target, int64_t batch)
{
    double sum = 0;
    for (size_t i = 0; i < pred.size(); ++i)
        sum += (pred[i] - target[i]) * (pred[i] - target[i]);
    return sum / static_cast<double>(pred.size()) * static_cast<double>(batch);
}

// log(sum(exp(z))) of one row, stably.
inline double logSumExp(const double* z, int64_t n)
{
    const double m = *std::max_element(z, z + n);
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        s += std::exp(z[j] - m);
    return m + std::log(s);
}

// Sparse categorical cross-entropy. From logits: -log softmax(z)_y. On probabilities (TF
// backend): p clipped to [eps, 1 - eps], then softmax cross-entropy of log(p), which is
// -log(p_y / sum_j p_j).
inline double sparseCategoricalCrossentropy(const Values& pred, const std::vector<int64_t>& labels, int64_t classes,
                                            bool fromLogits, int64_t batch)
{
    const int64_t rows = static_cast<int64_t>(pred.size()) / classes;
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const double* row = pred.data() + r * classes;
        const int64_t y = labels[at(r)];
        if (fromLogits) {
            sum += logSumExp(row, classes) - row[y];
        } else {
            double s = 0;
            for (int64_t j = 0; j < classes; ++j)
                s += clip(row[j]);
            sum += -std::log(clip(row[y]) / s);
        }
    }
    return sum / static_cast<double>(rows) * static_cast<double>(batch);
}

// Categorical cross-entropy with (one-hot or soft) targets. From logits: sum_j t_j (lse - z_j).
// On probabilities: q = p / sum(p), clipped to [eps, 1 - eps], then -sum_j t_j log q_j.
inline double categoricalCrossentropy(const Values& pred, const Values& target, int64_t classes, bool fromLogits,
                                      int64_t batch)
{
    const int64_t rows = static_cast<int64_t>(pred.size()) / classes;
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const double* row = pred.data() + r * classes;
        const double* t = target.data() + r * classes;
        if (fromLogits) {
            const double lse = logSumExp(row, classes);
            for (int64_t j = 0; j < classes; ++j)
                sum += t[j] * (lse - row[j]);
        } else {
            double s = 0;
            for (int64_t j = 0; j < classes; ++j)
                s += row[j];
            for (int64_t j = 0; j < classes; ++j)
                sum -= t[j] * std::log(clip(row[j] / s));
        }
    }
    return sum / static_cast<double>(rows) * static_cast<double>(batch);
}

// Binary cross-entropy, per value, averaged per example. From logits: the stable
// max(z, 0) - z t + log(1 + exp(-|z|)) (= -t log s(z) - (1 - t) log(1 - s(z))). On
// probabilities: p clipped to [eps, 1 - eps], then -t log p - (1 - t) log(1 - p).
inline double binaryCrossentropy(const Values& pred, const Values& target, bool fromLogits, int64_t batch)
{
    double sum = 0;
    for (size_t i = 0; i < pred.size(); ++i) {
        const double z = pred[i], t = target[i];
        if (fromLogits) {
            sum += std::max(z, 0.0) - z * t + std::log1p(std::exp(-std::fabs(z)));
        } else {
            const double p = clip(z);
            sum -= t * std::log(p) + (1 - t) * std::log(1 - p);
        }
    }
    return sum / static_cast<double>(pred.size()) * static_cast<double>(batch);
}

} // namespace reference
