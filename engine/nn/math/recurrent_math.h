#pragma once
// The recurrent layers' per-unit arithmetic, shared by the CPU loops (nn/recurrent_gates.cpp)
// and the CUDA kernels (cuda/recurrent_kernels.cu): the gate nonlinearities, one LSTM or GRU
// cell's forward and backward for one (example, unit), and the descriptions of one time
// step's operands that both backends walk. C++17, STRATA_HD.
//
// Gate order is Keras': LSTM [i, f, c, o], GRU [z, r, h]. Every backward takes the forward's
// activations (outputs), as the engine's activations do.

#include "strata/core/hd.h"
#include "strata/nn/activation_kind.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace strata::nn::math {

// --- exp, sigmoid and tanh without library calls ---------------------------------------------
// Branch-free, so that the CPU loops vectorize (glibc's expf and tanhf are scalar calls; the
// gates of an LSTM evaluate five of them per unit and step). Cephes' single-precision
// polynomials: within a few float ulps of the exact values over the whole range.

STRATA_HD inline float floatFromBits(int32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __int_as_float(bits);
#else
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

// e^x: x = n ln 2 + r with |r| <= ln 2 / 2, e^r by a degree-5 polynomial, 2^n built in the
// float's exponent bits. x is clamped to [-87, 88], where 2^n stays a normal float (e^-87 is
// 1.6e-38, e^88 1.7e38); NaN stays NaN.
STRATA_HD inline float expApprox(float x)
{
    x = x < -87.0f ? -87.0f : x; // two selects, each on a comparison made every time
    x = x > 88.0f ? 88.0f : x;
    // Round to nearest by adding and removing 1.5 * 2^23 (no library call, no SSE4.1).
    const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - n * 0.693359375f; // ln 2 in two parts: the first exact in few bits
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float er = p * r * r + r + 1.0f;
    return er * floatFromBits((static_cast<int32_t>(n) + 127) << 23);
}

STRATA_HD inline float sigmoidApprox(float x) { return 1.0f / (1.0f + expApprox(-x)); }

// tanh: an odd polynomial below |x| = 0.625 (where 1 - 2 / (e^2x + 1) would cancel), that
// formula above; both are computed and one selected, so the loop stays branch-free.
STRATA_HD inline float tanhApprox(float x)
{
    const float ax = std::fabs(x);
    const float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const float small = p * z * x + x;
    const float large = 1.0f - 2.0f / (expApprox(2.0f * ax) + 1.0f);
    const float big = std::copysign(large, x);
    return ax < 0.625f ? small : big;
}

// --- the activations a recurrent layer may use -----------------------------------------------
// forward(x), and backward(y, g) = g * f'(x) from the output y = f(x). The two defaults have
// their own types, so that the common case compiles to straight-line code; AnyActivation
// covers linear, relu, sigmoid and tanh (softmax is not elementwise: refused by the spec).

struct TanhGate {
    STRATA_HD float forward(float x) const { return tanhApprox(x); }
    STRATA_HD float backward(float y, float g) const { return g * (1.0f - y * y); }
};

struct SigmoidGate {
    STRATA_HD float forward(float x) const { return sigmoidApprox(x); }
    STRATA_HD float backward(float y, float g) const { return g * (y * (1.0f - y)); }
};

struct AnyActivation {
    Activation kind = Activation::Linear;
    STRATA_HD float forward(float x) const
    {
        switch (kind) {
        case Activation::Relu: return x > 0.0f ? x : 0.0f;
        case Activation::Sigmoid: return sigmoidApprox(x);
        case Activation::Tanh: return tanhApprox(x);
        default: return x;
        }
    }
    STRATA_HD float backward(float y, float g) const
    {
        switch (kind) {
        case Activation::Relu: return y > 0.0f ? g : 0.0f;
        case Activation::Sigmoid: return g * (y * (1.0f - y));
        case Activation::Tanh: return g * (1.0f - y * y);
        default: return g;
        }
    }
};

// --- one time step's operands ----------------------------------------------------------------
// Row r (an example) of an operand starts at data + r * stride: every T-th row of a (batch,
// steps, width) buffer has stride steps * width. Stride 0 repeats one row (a row of zeros for
// an absent state or gradient).
template <typename T>
struct StepRows {
    T* data = nullptr;
    int64_t stride = 0;
    STRATA_HD T* row(int64_t r) const { return data + r * stride; }
};
using Rows = StepRows<float>;
using ConstRows = StepRows<const float>;
STRATA_HD inline ConstRows readOnly(Rows r) { return {r.data, r.stride}; }

// LSTM forward: gates (4u per row) in: x·W + h·R, without the bias; out: i, f, c~, o. Writes
// the cell state c, activation(c) and h, the last to two places (the output and the next
// step's state; `hCopy` is a scratch row when only one is needed).
struct LstmForwardStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    const float* bias = nullptr; // 4u (zeros without a bias)
    ConstRows cPrev;
    Rows c, actC, h, hCopy;
};

// LSTM backward: gates in: i, f, c~, o; out: dL/d(pre-activations). dhOut: dL/dh_t from the
// layer's output; dhRec: dL/dh_t through step t + 1; dc in: dL/dc_t through c_{t+1}, out:
// dL/dc_{t-1}.
struct LstmBackwardStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    ConstRows cPrev, actC, dhOut, dhRec;
    Rows dc;
};

// GRU with reset_after (Keras' default): gates (3u) in: x·W; out: z, r, h~. rec (3u) in: h·R;
// its third part out: h·R_h + b_rh (kept for the backward). Biases: input and recurrent rows.
struct GruForwardStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    const float* inputBias = nullptr;
    Rows rec;
    const float* recBias = nullptr;
    ConstRows hPrev;
    Rows h, hCopy;
};

// GRU reset_after backward: gates in: z, r, h~; out: dL/d(x·W + b) parts. recGrad out:
// dL/d(h·R + b_r) parts. dh in: dL/dh_t through step t + 1 (without the output's); out: the
// part of dL/dh_{t-1} that does not go through R (dh_t · z).
struct GruBackwardStep {
    int64_t rows = 0, units = 0;
    Rows gates, recGrad;
    ConstRows rec, hPrev, dhOut;
    Rows dh;
};

// GRU without reset_after, first pass: gates' z and r parts in: x·W + h·R; out: z, r. Writes
// r * h_{t-1}, the candidate's recurrent GEMM input.
struct GruResetStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    const float* bias = nullptr;
    ConstRows hPrev;
    Rows resetH;
};

// Second pass: the h part in: x·W_h + (r * h)·R_h; out: h~. Writes h as LstmForwardStep does.
struct GruCandidateStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    const float* bias = nullptr;
    ConstRows hPrev;
    Rows h, hCopy;
};

// Backward, first pass: gates' z and h parts out: their gradients; dh as GruBackwardStep.
struct GruCandidateBackStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    ConstRows hPrev, dhOut;
    Rows dh;
};

// Second pass: from dL/d(r * h_{t-1}), the r part's gradient, and dh += dL/d(r h) * r.
struct GruResetBackStep {
    int64_t rows = 0, units = 0;
    Rows gates;
    ConstRows dResetH, hPrev;
    Rows dh;
};

// --- one (example, unit) ---------------------------------------------------------------------

// z*: pre-activations in, activations out.
template <class Act, class Rec>
STRATA_HD inline void lstmForwardUnit(const Act& act, const Rec& rec, float& zi, float& zf, float& zg, float& zo,
                                      float cPrev, float& c, float& actC, float& h)
{
    zi = rec.forward(zi);
    zf = rec.forward(zf);
    zg = act.forward(zg);
    zo = rec.forward(zo);
    c = zf * cPrev + zi * zg;
    actC = act.forward(c);
    h = zo * actC;
}

// i, f, g, o: activations in, dL/d(pre-activations) out. dc: dL/dc_t from step t + 1 in,
// dL/dc_{t-1} out.
template <class Act, class Rec>
STRATA_HD inline void lstmBackwardUnit(const Act& act, const Rec& rec, float& i, float& f, float& g, float& o,
                                       float cPrev, float actC, float dh, float& dc)
{
    const float dcTotal = dc + act.backward(actC, dh * o);
    const float di = rec.backward(i, dcTotal * g);
    const float df = rec.backward(f, dcTotal * cPrev);
    const float dg = act.backward(g, dcTotal * i);
    const float dout = rec.backward(o, dh * actC);
    dc = dcTotal * f;
    i = di;
    f = df;
    g = dg;
    o = dout;
}

// reset_after: x* = x·W + b_in (in), z, r, h~ (out); r* = h·R + b_rec.
template <class Act, class Rec>
STRATA_HD inline void gruForwardUnit(const Act& act, const Rec& rec, float& xz, float& xr, float& xh, float rz,
                                     float rr, float rh, float hPrev, float& h)
{
    const float z = rec.forward(xz + rz);
    const float r = rec.forward(xr + rr);
    const float hh = act.forward(xh + r * rh);
    h = z * hPrev + (1.0f - z) * hh;
    xz = z;
    xr = r;
    xh = hh;
}

// reset_after: z, r, hh in; out: dL/d of the x part's pre-activations. dRecH: dL/d(h·R_h + b).
// dhDirect: dL/dh_{t-1} through h = z h_{t-1} + ...
template <class Act, class Rec>
STRATA_HD inline void gruBackwardUnit(const Act& act, const Rec& rec, float& z, float& r, float& hh, float rh,
                                      float hPrev, float dh, float& dRecH, float& dhDirect)
{
    const float dz = rec.backward(z, dh * (hPrev - hh));
    const float dhh = act.backward(hh, dh * (1.0f - z));
    const float dr = rec.backward(r, dhh * rh);
    dRecH = dhh * r;
    dhDirect = dh * z;
    z = dz;
    r = dr;
    hh = dhh;
}

// Without reset_after, first pass: z, r pre-activations in, activations out; r * h_{t-1}.
template <class Rec>
STRATA_HD inline void gruResetUnit(const Rec& rec, float& z, float& r, float hPrev, float& resetH)
{
    z = rec.forward(z);
    r = rec.forward(r);
    resetH = r * hPrev;
}

// Its backward: r in, dL/d(its pre-activation) out; dh += the part through r * h_{t-1}.
template <class Rec>
STRATA_HD inline void gruResetBackwardUnit(const Rec& rec, float& r, float dResetH, float hPrev, float& dh)
{
    dh += dResetH * r;
    r = rec.backward(r, dResetH * hPrev);
}

// The candidate and the new state (both GRU variants): hh pre-activation in, h~ out.
template <class Act>
STRATA_HD inline void gruCandidateUnit(const Act& act, float z, float& hh, float hPrev, float& h)
{
    hh = act.forward(hh);
    h = z * hPrev + (1.0f - z) * hh;
}

// Without reset_after: z, hh in; their gradients out; dhDirect as gruBackwardUnit.
template <class Act, class Rec>
STRATA_HD inline void gruCandidateBackwardUnit(const Act& act, const Rec& rec, float& z, float& hh, float hPrev,
                                               float dh, float& dhDirect)
{
    const float dz = rec.backward(z, dh * (hPrev - hh));
    const float dhh = act.backward(hh, dh * (1.0f - z));
    dhDirect = dh * z;
    z = dz;
    hh = dhh;
}

} // namespace strata::nn::math
