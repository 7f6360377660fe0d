// The recurrent layers' gate passes on a GPU: one time step, a thread per (example, unit),
// running nn/math/recurrent_math.h's per-unit arithmetic (the CPU loops of
// nn/recurrent_gates.cpp run the same). The GEMMs around them are cuBLAS's (gemmStrided).
//
// Why not cuDNN's RNN API (cudnnRNNForward & co., v8): it could not be run on this project's
// build machines, which have no GPU, so nothing would check its weight layout, gate order or
// bias conventions against Keras'; these kernels do the CPU path's exact arithmetic, which the
// CPU tests check against double-precision references, and tst_gpu_ops compares the two
// devices wherever a GPU is present.

#include "launch.cuh"
#include "nn/math/recurrent_math.h"
#include "cuda_ops.h"

namespace strata::cuda {

namespace {

using nn::Activation;
using nn::math::AnyActivation;
using nn::math::SigmoidGate;
using nn::math::TanhGate;

bool defaults(Activation act, Activation rec) { return act == Activation::Tanh && rec == Activation::Sigmoid; }

template <class Act, class Rec>
void lstmForward(int device, Act act, Rec rec, nn::math::LstmForwardStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float i = g[u] + s.bias[u], f = g[n + u] + s.bias[n + u], c = g[2 * n + u] + s.bias[2 * n + u],
              o = g[3 * n + u] + s.bias[3 * n + u];
        float cv, av, hv;
        nn::math::lstmForwardUnit(act, rec, i, f, c, o, s.cPrev.row(r)[u], cv, av, hv);
        g[u] = i;
        g[n + u] = f;
        g[2 * n + u] = c;
        g[3 * n + u] = o;
        s.c.row(r)[u] = cv;
        s.actC.row(r)[u] = av;
        s.h.row(r)[u] = hv;
        s.hCopy.row(r)[u] = hv;
    }, "lstmForwardStep");
}

template <class Act, class Rec>
void lstmBackward(int device, Act act, Rec rec, nn::math::LstmBackwardStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float i = g[u], f = g[n + u], c = g[2 * n + u], o = g[3 * n + u], dc = s.dc.row(r)[u];
        nn::math::lstmBackwardUnit(act, rec, i, f, c, o, s.cPrev.row(r)[u], s.actC.row(r)[u],
                                   s.dhOut.row(r)[u] + s.dhRec.row(r)[u], dc);
        g[u] = i;
        g[n + u] = f;
        g[2 * n + u] = c;
        g[3 * n + u] = o;
        s.dc.row(r)[u] = dc;
    }, "lstmBackwardStep");
}

template <class Act, class Rec>
void gruForward(int device, Act act, Rec rec, nn::math::GruForwardStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float* rc = s.rec.row(r);
        float z = g[u] + s.inputBias[u], rv = g[n + u] + s.inputBias[n + u], hh = g[2 * n + u] + s.inputBias[2 * n + u];
        const float recH = rc[2 * n + u] + s.recBias[2 * n + u];
        float hv;
        nn::math::gruForwardUnit(act, rec, z, rv, hh, rc[u] + s.recBias[u], rc[n + u] + s.recBias[n + u], recH,
                                 s.hPrev.row(r)[u], hv);
        g[u] = z;
        g[n + u] = rv;
        g[2 * n + u] = hh;
        rc[2 * n + u] = recH;
        s.h.row(r)[u] = hv;
        s.hCopy.row(r)[u] = hv;
    }, "gruForwardStep");
}

template <class Act, class Rec>
void gruBackward(int device, Act act, Rec rec, nn::math::GruBackwardStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float* dg = s.recGrad.row(r);
        float z = g[u], rv = g[n + u], hh = g[2 * n + u], dRecH, dhDirect;
        nn::math::gruBackwardUnit(act, rec, z, rv, hh, s.rec.row(r)[2 * n + u], s.hPrev.row(r)[u],
                                  s.dhOut.row(r)[u] + s.dh.row(r)[u], dRecH, dhDirect);
        g[u] = z;
        g[n + u] = rv;
        g[2 * n + u] = hh;
        dg[u] = z;
        dg[n + u] = rv;
        dg[2 * n + u] = dRecH;
        s.dh.row(r)[u] = dhDirect;
    }, "gruBackwardStep");
}

template <class Rec>
void gruReset(int device, Rec rec, nn::math::GruResetStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float z = g[u] + s.bias[u], rv = g[n + u] + s.bias[n + u], rh;
        nn::math::gruResetUnit(rec, z, rv, s.hPrev.row(r)[u], rh);
        g[u] = z;
        g[n + u] = rv;
        s.resetH.row(r)[u] = rh;
    }, "gruResetStep");
}

template <class Act>
void gruCandidate(int device, Act act, nn::math::GruCandidateStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float hh = g[2 * n + u] + s.bias[2 * n + u], hv;
        nn::math::gruCandidateUnit(act, g[u], hh, s.hPrev.row(r)[u], hv);
        g[2 * n + u] = hh;
        s.h.row(r)[u] = hv;
        s.hCopy.row(r)[u] = hv;
    }, "gruCandidateStep");
}

template <class Act, class Rec>
void gruCandidateBack(int device, Act act, Rec rec, nn::math::GruCandidateBackStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float z = g[u], hh = g[2 * n + u], dhDirect;
        nn::math::gruCandidateBackwardUnit(act, rec, z, hh, s.hPrev.row(r)[u], s.dhOut.row(r)[u] + s.dh.row(r)[u],
                                           dhDirect);
        g[u] = z;
        g[2 * n + u] = hh;
        s.dh.row(r)[u] = dhDirect;
    }, "gruCandidateBackStep");
}

template <class Rec>
void gruResetBack(int device, Rec rec, nn::math::GruResetBackStep s)
{
    const int64_t n = s.units;
    forEach(device, s.rows * n, [=] __device__(int64_t k) {
        const int64_t r = k / n, u = k % n;
        float* g = s.gates.row(r);
        float rv = g[n + u], dh = s.dh.row(r)[u];
        nn::math::gruResetBackwardUnit(rec, rv, s.dResetH.row(r)[u], s.hPrev.row(r)[u], dh);
        g[n + u] = rv;
        s.dh.row(r)[u] = dh;
    }, "gruResetBackStep");
}

} // namespace

void CudaOps::lstmForwardStep(int device, Activation act, Activation rec, const nn::math::LstmForwardStep& s)
{
    if (defaults(act, rec))
        return lstmForward(device, TanhGate{}, SigmoidGate{}, s);
    lstmForward(device, AnyActivation{act}, AnyActivation{rec}, s);
}

void CudaOps::lstmBackwardStep(int device, Activation act, Activation rec, const nn::math::LstmBackwardStep& s)
{
    if (defaults(act, rec))
        return lstmBackward(device, TanhGate{}, SigmoidGate{}, s);
    lstmBackward(device, AnyActivation{act}, AnyActivation{rec}, s);
}

void CudaOps::gruForwardStep(int device, Activation act, Activation rec, const nn::math::GruForwardStep& s)
{
    if (defaults(act, rec))
        return gruForward(device, TanhGate{}, SigmoidGate{}, s);
    gruForward(device, AnyActivation{act}, AnyActivation{rec}, s);
}

void CudaOps::gruBackwardStep(int device, Activation act, Activation rec, const nn::math::GruBackwardStep& s)
{
    if (defaults(act, rec))
        return gruBackward(device, TanhGate{}, SigmoidGate{}, s);
    gruBackward(device, AnyActivation{act}, AnyActivation{rec}, s);
}

void CudaOps::gruResetStep(int device, Activation rec, const nn::math::GruResetStep& s)
{
    if (rec == Activation::Sigmoid)
        return gruReset(device, SigmoidGate{}, s);
    gruReset(device, AnyActivation{rec}, s);
}

void CudaOps::gruCandidateStep(int device, Activation act, const nn::math::GruCandidateStep& s)
{
    if (act == Activation::Tanh)
        return gruCandidate(device, TanhGate{}, s);
    gruCandidate(device, AnyActivation{act}, s);
}

void CudaOps::gruCandidateBackStep(int device, Activation act, Activation rec, const nn::math::GruCandidateBackStep& s)
{
    if (defaults(act, rec))
        return gruCandidateBack(device, TanhGate{}, SigmoidGate{}, s);
    gruCandidateBack(device, AnyActivation{act}, AnyActivation{rec}, s);
}

void CudaOps::gruResetBackStep(int device, Activation rec, const nn::math::GruResetBackStep& s)
{
    if (rec == Activation::Sigmoid)
        return gruResetBack(device, SigmoidGate{}, s);
    gruResetBack(device, AnyActivation{rec}, s);
}

void CudaOps::fillRows(int device, float* p, int64_t rows, int64_t cols, int64_t stride, float value)
{
    forEach(device, rows * cols, [=] __device__(int64_t k) { p[(k / cols) * stride + k % cols] = value; },
            "fillRows");
}

} // namespace strata::cuda
