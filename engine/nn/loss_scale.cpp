#include "strata/nn/loss_scale.h"

#include "cuda/ops.h"

#include <algorithm>
#include <cmath>

namespace strata::nn {

bool LossScale::unscale(Tensor& gradients) const
{
    const float inverse = 1.0f / m_factor;
    if (!gradients.device().isCpu())
        return cuda::ops().unscale(gradients.device().index, gradients.data(), gradients.numel(), inverse);
    bool finite = true;
    for (float& g : gradients.values()) {
        g *= inverse;
        finite = finite && std::isfinite(g);
    }
    return finite;
}

void LossScale::update(bool finite)
{
    if (!finite) {
        m_factor = std::max(1.0f, m_factor / 2);
        m_cleanSteps = 0;
        return;
    }
    if (++m_cleanSteps >= m_growthSteps) {
        m_factor *= 2;
        m_cleanSteps = 0;
    }
}

} // namespace strata::nn
