// The recurrent layers' gate passes on the CPU: one time step over the calling thread's rows,
// vectorized over the units. Each entry point is cloned for AVX-512 and AVX2 (the engine
// otherwise builds for baseline x86-64) and picks the straight-line instantiation for Keras'
// default activations (tanh, sigmoid), or the generic one. The per-unit formulas are
// nn/math/recurrent_math.h's, which the CUDA kernels run too.

#include "recurrent_ops.h"

namespace strata::nn::recurrent::cpu {

namespace {

using math::AnyActivation;
using math::SigmoidGate;
using math::TanhGate;

#define STRATA_INLINE __attribute__((always_inline)) inline
#define STRATA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// Each row function takes its operands as restrict parameters: GCC's dependence analysis
// then vectorizes the unit loop (with pointers derived inside the loop over rows it did not).

template <class Act, class Rec>
STRATA_INLINE void lstmForwardRow(const Act& act, const Rec& rec, int64_t n, float* __restrict gi,
                                  float* __restrict gf, float* __restrict gg, float* __restrict go,
                                  const float* __restrict b, const float* __restrict cPrev, float* __restrict c,
                                  float* __restrict actC, float* __restrict h, float* __restrict hCopy)
{
    for (int64_t u = 0; u < n; ++u) {
        float i = gi[u] + b[u], f = gf[u] + b[n + u], g = gg[u] + b[2 * n + u], o = go[u] + b[3 * n + u];
        float cv, av, hv;
        math::lstmForwardUnit(act, rec, i, f, g, o, cPrev[u], cv, av, hv);
        gi[u] = i;
        gf[u] = f;
        gg[u] = g;
        go[u] = o;
        c[u] = cv;
        actC[u] = av;
        h[u] = hv;
        hCopy[u] = hv;
    }
}

template <class Act, class Rec>
STRATA_INLINE void lstmForwardRows(const Act& act, const Rec& rec, const math::LstmForwardStep& s)
{
    const int64_t n = s.units;
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        lstmForwardRow(act, rec, n, g, g + n, g + 2 * n, g + 3 * n, s.bias, s.cPrev.row(r), s.c.row(r), s.actC.row(r),
                       s.h.row(r), s.hCopy.row(r));
    }
}

template <class Act, class Rec>
STRATA_INLINE void lstmBackwardRow(const Act& act, const Rec& rec, int64_t n, float* __restrict gi,
                                   float* __restrict gf, float* __restrict gg, float* __restrict go,
                                   const float* __restrict cPrev, const float* __restrict actC,
                                   const float* __restrict dhOut, const float* __restrict dhRec, float* __restrict dc)
{
    for (int64_t u = 0; u < n; ++u) {
        float i = gi[u], f = gf[u], g = gg[u], o = go[u], dcv = dc[u];
        math::lstmBackwardUnit(act, rec, i, f, g, o, cPrev[u], actC[u], dhOut[u] + dhRec[u], dcv);
        gi[u] = i;
        gf[u] = f;
        gg[u] = g;
        go[u] = o;
        dc[u] = dcv;
    }
}

template <class Act, class Rec>
STRATA_INLINE void lstmBackwardRows(const Act& act, const Rec& rec, const math::LstmBackwardStep& s)
{
    const int64_t n = s.units;
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        lstmBackwardRow(act, rec, n, g, g + n, g + 2 * n, g + 3 * n, s.cPrev.row(r), s.actC.row(r), s.dhOut.row(r),
                        s.dhRec.row(r), s.dc.row(r));
    }
}

template <class Act, class Rec>
STRATA_INLINE void gruForwardRow(const Act& act, const Rec& rec, int64_t n, float* __restrict gz,
                                 float* __restrict gr, float* __restrict gh, const float* __restrict bi,
                                 const float* __restrict rz, const float* __restrict rr, float* __restrict rh,
                                 const float* __restrict br, const float* __restrict hPrev, float* __restrict h,
                                 float* __restrict hCopy)
{
    for (int64_t u = 0; u < n; ++u) {
        float z = gz[u] + bi[u], rv = gr[u] + bi[n + u], hh = gh[u] + bi[2 * n + u];
        const float recH = rh[u] + br[2 * n + u];
        float hv;
        math::gruForwardUnit(act, rec, z, rv, hh, rz[u] + br[u], rr[u] + br[n + u], recH, hPrev[u], hv);
        gz[u] = z;
        gr[u] = rv;
        gh[u] = hh;
        rh[u] = recH;
        h[u] = hv;
        hCopy[u] = hv;
    }
}

template <class Act, class Rec>
STRATA_INLINE void gruForwardRows(const Act& act, const Rec& rec, const math::GruForwardStep& s)
{
    const int64_t n = s.units;
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        float* rc = s.rec.row(r);
        gruForwardRow(act, rec, n, g, g + n, g + 2 * n, s.inputBias, rc, rc + n, rc + 2 * n, s.recBias, s.hPrev.row(r),
                      s.h.row(r), s.hCopy.row(r));
    }
}

template <class Act, class Rec>
STRATA_INLINE void gruBackwardRow(const Act& act, const Rec& rec, int64_t n, float* __restrict gz,
                                  float* __restrict gr, float* __restrict gh, float* __restrict dz,
                                  float* __restrict dr, float* __restrict drh, const float* __restrict recH,
                                  const float* __restrict hPrev, const float* __restrict dhOut, float* __restrict dh)
{
    for (int64_t u = 0; u < n; ++u) {
        float z = gz[u], rv = gr[u], hh = gh[u], dRecH, dhDirect;
        math::gruBackwardUnit(act, rec, z, rv, hh, recH[u], hPrev[u], dhOut[u] + dh[u], dRecH, dhDirect);
        gz[u] = z;
        gr[u] = rv;
        gh[u] = hh;
        dz[u] = z;
        dr[u] = rv;
        drh[u] = dRecH;
        dh[u] = dhDirect;
    }
}

template <class Act, class Rec>
STRATA_INLINE void gruBackwardRows(const Act& act, const Rec& rec, const math::GruBackwardStep& s)
{
    const int64_t n = s.units;
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        float* d = s.recGrad.row(r);
        gruBackwardRow(act, rec, n, g, g + n, g + 2 * n, d, d + n, d + 2 * n, s.rec.row(r) + 2 * n, s.hPrev.row(r),
                       s.dhOut.row(r), s.dh.row(r));
    }
}

template <class Rec>
STRATA_INLINE void gruResetRow(const Rec& rec, int64_t n, float* __restrict gz, float* __restrict gr,
                               const float* __restrict b, const float* __restrict hPrev, float* __restrict resetH)
{
    for (int64_t u = 0; u < n; ++u) {
        float z = gz[u] + b[u], rv = gr[u] + b[n + u], rh;
        math::gruResetUnit(rec, z, rv, hPrev[u], rh);
        gz[u] = z;
        gr[u] = rv;
        resetH[u] = rh;
    }
}

template <class Rec>
STRATA_INLINE void gruResetRows(const Rec& rec, const math::GruResetStep& s)
{
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        gruResetRow(rec, s.units, g, g + s.units, s.bias, s.hPrev.row(r), s.resetH.row(r));
    }
}

template <class Act>
STRATA_INLINE void gruCandidateRow(const Act& act, int64_t n, const float* __restrict gz, float* __restrict gh,
                                   const float* __restrict b, const float* __restrict hPrev, float* __restrict h,
                                   float* __restrict hCopy)
{
    for (int64_t u = 0; u < n; ++u) {
        float hh = gh[u] + b[u], hv;
        math::gruCandidateUnit(act, gz[u], hh, hPrev[u], hv);
        gh[u] = hh;
        h[u] = hv;
        hCopy[u] = hv;
    }
}

template <class Act>
STRATA_INLINE void gruCandidateRows(const Act& act, const math::GruCandidateStep& s)
{
    const int64_t n = s.units;
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        gruCandidateRow(act, n, g, g + 2 * n, s.bias + 2 * n, s.hPrev.row(r), s.h.row(r), s.hCopy.row(r));
    }
}

template <class Act, class Rec>
STRATA_INLINE void gruCandidateBackRow(const Act& act, const Rec& rec, int64_t n, float* __restrict gz,
                                       float* __restrict gh, const float* __restrict hPrev,
                                       const float* __restrict dhOut, float* __restrict dh)
{
    for (int64_t u = 0; u < n; ++u) {
        float z = gz[u], hh = gh[u], dhDirect;
        math::gruCandidateBackwardUnit(act, rec, z, hh, hPrev[u], dhOut[u] + dh[u], dhDirect);
        gz[u] = z;
        gh[u] = hh;
        dh[u] = dhDirect;
    }
}

template <class Act, class Rec>
STRATA_INLINE void gruCandidateBackRows(const Act& act, const Rec& rec, const math::GruCandidateBackStep& s)
{
    const int64_t n = s.units;
    for (int64_t r = 0; r < s.rows; ++r) {
        float* g = s.gates.row(r);
        gruCandidateBackRow(act, rec, n, g, g + 2 * n, s.hPrev.row(r), s.dhOut.row(r), s.dh.row(r));
    }
}

template <class Rec>
STRATA_INLINE void gruResetBackRow(const Rec& rec, int64_t n, float* __restrict gr, const float* __restrict dResetH,
                                   const float* __restrict hPrev, float* __restrict dh)
{
    for (int64_t u = 0; u < n; ++u) {
        float rv = gr[u], dhv = dh[u];
        math::gruResetBackwardUnit(rec, rv, dResetH[u], hPrev[u], dhv);
        gr[u] = rv;
        dh[u] = dhv;
    }
}

template <class Rec>
STRATA_INLINE void gruResetBackRows(const Rec& rec, const math::GruResetBackStep& s)
{
    for (int64_t r = 0; r < s.rows; ++r)
        gruResetBackRow(rec, s.units, s.gates.row(r) + s.units, s.dResetH.row(r), s.hPrev.row(r), s.dh.row(r));
}

bool defaults(Activation act, Activation rec) { return act == Activation::Tanh && rec == Activation::Sigmoid; }

} // namespace

STRATA_CLONES void lstmForward(Activation act, Activation rec, const math::LstmForwardStep& s)
{
    if (defaults(act, rec))
        return lstmForwardRows(TanhGate{}, SigmoidGate{}, s);
    lstmForwardRows(AnyActivation{act}, AnyActivation{rec}, s);
}

STRATA_CLONES void lstmBackward(Activation act, Activation rec, const math::LstmBackwardStep& s)
{
    if (defaults(act, rec))
        return lstmBackwardRows(TanhGate{}, SigmoidGate{}, s);
    lstmBackwardRows(AnyActivation{act}, AnyActivation{rec}, s);
}

STRATA_CLONES void gruForward(Activation act, Activation rec, const math::GruForwardStep& s)
{
    if (defaults(act, rec))
        return gruForwardRows(TanhGate{}, SigmoidGate{}, s);
    gruForwardRows(AnyActivation{act}, AnyActivation{rec}, s);
}

STRATA_CLONES void gruBackward(Activation act, Activation rec, const math::GruBackwardStep& s)
{
    if (defaults(act, rec))
        return gruBackwardRows(TanhGate{}, SigmoidGate{}, s);
    gruBackwardRows(AnyActivation{act}, AnyActivation{rec}, s);
}

STRATA_CLONES void gruReset(Activation rec, const math::GruResetStep& s)
{
    if (rec == Activation::Sigmoid)
        return gruResetRows(SigmoidGate{}, s);
    gruResetRows(AnyActivation{rec}, s);
}

STRATA_CLONES void gruCandidate(Activation act, const math::GruCandidateStep& s)
{
    if (act == Activation::Tanh)
        return gruCandidateRows(TanhGate{}, s);
    gruCandidateRows(AnyActivation{act}, s);
}

STRATA_CLONES void gruCandidateBack(Activation act, Activation rec, const math::GruCandidateBackStep& s)
{
    if (defaults(act, rec))
        return gruCandidateBackRows(TanhGate{}, SigmoidGate{}, s);
    gruCandidateBackRows(AnyActivation{act}, AnyActivation{rec}, s);
}

STRATA_CLONES void gruResetBack(Activation rec, const math::GruResetBackStep& s)
{
    if (rec == Activation::Sigmoid)
        return gruResetBackRows(SigmoidGate{}, s);
    gruResetBackRows(AnyActivation{rec}, s);
}

} // namespace strata::nn::recurrent::cpu
