#include "strata/nn/optimizer.h"

#include "cuda/ops.h"
#include "nn/math/optimizer_math.h"
#include "strata/core/error.h"
#include "tensor/parallel.h"

#include <cmath>

namespace strata::nn {

void Optimizer::prepare(const std::vector<Parameter*>& params)
{
    if (!m_slots.empty()) {
        STRATA_CHECK(m_slots.size() == params.size(), "optimizer used with a different parameter list");
        return;
    }
    const auto names = slotNames();
    for (Parameter* p : params) {
        m_paramNames.push_back(p->name);
        std::vector<Tensor> slots;
        for (size_t i = 0; i < names.size(); ++i)
            slots.push_back(Tensor::zeros(p->value.shape(), p->value.device()));
        m_slots.push_back(std::move(slots));
    }
}

void Optimizer::apply(const std::vector<Parameter*>& params)
{
    prepare(params);
    ++m_iterations;
    if (!params.empty() && !params[0]->value.device().isCpu()) {
        // On a GPU each update is one kernel over the whole parameter.
        for (size_t i = 0; i < params.size(); ++i)
            update(*params[i], m_slots[i], m_iterations, 0, params[i]->value.numel());
        return;
    }
    int64_t total = 0;
    for (const Parameter* p : params)
        total += p->value.numel();
    // Each thread updates its own share of every parameter, the share whose gradient it
    // computed (parallel.h, kMinOwnedParameters); one parallel region for all of them.
    const auto updateShares = [&](int64_t t, int64_t threads) {
        for (size_t i = 0; i < params.size(); ++i) {
            const auto [from, to] = parallel::share(params[i]->value.numel(), t, threads);
            if (from < to)
                update(*params[i], m_slots[i], m_iterations, from, to);
        }
    };
    const int threads = parallel::ownerThreads(total);
    if (threads <= 1)
        return updateShares(0, 1);
#pragma omp parallel num_threads(threads)
    updateShares(omp_get_thread_num(), omp_get_num_threads());
}

std::vector<std::pair<std::string, Tensor*>> Optimizer::stateTensors()
{
    std::vector<std::pair<std::string, Tensor*>> out;
    const auto names = slotNames();
    for (size_t i = 0; i < m_slots.size(); ++i)
        for (size_t j = 0; j < names.size(); ++j)
            out.emplace_back(m_paramNames[i] + "/" + names[j], &m_slots[i][j]);
    return out;
}

namespace {

// Keras SGD: v = momentum * v - lr * g; w += v (Nesterov: w += momentum * v - lr * g).
class Sgd final : public Optimizer {
public:
    explicit Sgd(const schema::OptimizerSpec& s) : Optimizer(s.learningRate), m_momentum(s.momentum), m_nesterov(s.nesterov) {}
    const char* name() const override { return "sgd"; }

protected:
    std::vector<std::string> slotNames() const override
    {
        return m_momentum > 0 ? std::vector<std::string>{"momentum"} : std::vector<std::string>{};
    }
    void update(Parameter& p, std::vector<Tensor>& slots, int64_t, int64_t begin, int64_t end) override
    {
        float* __restrict w = p.value.data();
        const float* __restrict g = p.grad.data();
        const math::SgdStep step{static_cast<float>(m_learningRate), static_cast<float>(m_momentum), m_nesterov};
        float* __restrict v = m_momentum > 0 ? slots[0].data() : nullptr;
        if (!p.value.device().isCpu())
            return cuda::ops().sgd(p.value.device().index, step.lr, step.momentum, step.nesterov, w, g, v, end);
        if (!v) {
            for (int64_t i = begin; i < end; ++i)
                step(w[i], g[i]);
            return;
        }
        for (int64_t i = begin; i < end; ++i)
            step(w[i], g[i], v[i]);
    }

private:
    double m_momentum;
    bool m_nesterov;
};

// Keras Adam: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps).
class Adam final : public Optimizer {
public:
    explicit Adam(const schema::OptimizerSpec& s)
        : Optimizer(s.learningRate), m_beta1(s.beta1), m_beta2(s.beta2), m_epsilon(s.epsilon)
    {
    }
    const char* name() const override { return "adam"; }

protected:
    std::vector<std::string> slotNames() const override { return {"m", "v"}; }
    void update(Parameter& p, std::vector<Tensor>& slots, int64_t t, int64_t begin, int64_t end) override
    {
        const double td = static_cast<double>(t);
        const float alpha =
            static_cast<float>(m_learningRate * std::sqrt(1 - std::pow(m_beta2, td)) / (1 - std::pow(m_beta1, td)));
        const math::AdamStep step{alpha, static_cast<float>(m_beta1), static_cast<float>(m_beta2),
                                  static_cast<float>(m_epsilon)};
        if (!p.value.device().isCpu())
            return cuda::ops().adam(p.value.device().index, step.alpha, step.beta1, step.beta2, step.epsilon,
                              p.value.data(), p.grad.data(), slots[0].data(), slots[1].data(), end);
        run(step, p.value.data() + begin, p.grad.data() + begin, slots[0].data() + begin, slots[1].data() + begin,
            end - begin);
    }

private:
    __attribute__((target_clones("avx512f", "avx2", "default"))) static void
    run(math::AdamStep step, float* __restrict w, const float* __restrict g, float* __restrict m, float* __restrict v,
        int64_t n)
    {
        for (int64_t i = 0; i < n; ++i)
            step(w[i], g[i], m[i], v[i]);
    }

    double m_beta1, m_beta2, m_epsilon;
};

// Keras RMSprop: v = rho v + (1 - rho) g^2; centered: mg = rho mg + (1 - rho) g, denominator
// v - mg^2; step = lr g / sqrt(denominator + eps); with momentum: m = momentum m + step.
class RmsProp final : public Optimizer {
public:
    explicit RmsProp(const schema::OptimizerSpec& s)
        : Optimizer(s.learningRate), m_rho(s.rho), m_momentum(s.momentum), m_epsilon(s.epsilon), m_centered(s.centered)
    {
    }
    const char* name() const override { return "rmsprop"; }

protected:
    std::vector<std::string> slotNames() const override
    {
        std::vector<std::string> names{"velocity"};
        if (m_momentum > 0)
            names.push_back("momentum");
        if (m_centered)
            names.push_back("average_gradient");
        return names;
    }
    void update(Parameter& p, std::vector<Tensor>& slots, int64_t, int64_t begin, int64_t end) override
    {
        float* w = p.value.data();
        const float* g = p.grad.data();
        float* v = slots[0].data();
        float* mom = m_momentum > 0 ? slots[1].data() : nullptr;
        float* mg = m_centered ? slots.back().data() : nullptr;
        const math::RmsPropStep step{static_cast<float>(m_rho), static_cast<float>(m_learningRate),
                                     static_cast<float>(m_epsilon), static_cast<float>(m_momentum)};
        if (!p.value.device().isCpu())
            return cuda::ops().rmsprop(p.value.device().index, step.rho, step.lr, step.epsilon, step.momentum, w, g, v,
                                 mom, mg, end);
        for (int64_t i = begin; i < end; ++i)
            step(w[i], g[i], v[i], mom ? mom + i : nullptr, mg ? mg + i : nullptr);
    }

private:
    double m_rho, m_momentum, m_epsilon;
    bool m_centered;
};

} // namespace

std::unique_ptr<Optimizer> createOptimizer(const schema::OptimizerSpec& spec)
{
    if (spec.type == "sgd")
        return std::make_unique<Sgd>(spec);
    if (spec.type == "adam")
        return std::make_unique<Adam>(spec);
    if (spec.type == "rmsprop")
        return std::make_unique<RmsProp>(spec);
    throw ConfigError("training.optimizer.type", "unknown optimizer \"" + spec.type + "\"");
}

} // namespace strata::nn
