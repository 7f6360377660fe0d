#include "strata/report/step_window.h"

namespace strata::run {

using Json = nlohmann::ordered_json;

void StepWindow::add(const StepSample& s)
{
    if (m_replicas.size() != s.replicas.size()) {
        m_replicas = s.replicas;
        for (auto& r : m_replicas) {
            r.loss = 0;
            r.samples = 0;
        }
    }
    for (size_t i = 0; i < s.replicas.size(); ++i) {
        m_replicas[i].loss += s.replicas[i].loss;
        m_replicas[i].samples += s.replicas[i].samples;
    }
    m_loss += s.loss;
    m_stepMs += s.stepMs;
    m_computeMs += s.computeMs;
    m_commMs += s.commMs;
    m_inputMs += s.inputMs;
    m_last = s;
    ++m_steps;
}

Json StepWindow::take(const Json& metrics)
{
    const double n = static_cast<double>(m_steps);
    Json replicas = Json::array();
    int64_t samples = 0;
    for (size_t i = 0; i < m_replicas.size(); ++i) {
        replicas.push_back({{"replica", i},
                            {"device", m_replicas[i].device},
                            {"loss", m_replicas[i].loss / n},
                            {"samples", m_replicas[i].samples}});
        samples += m_replicas[i].samples;
    }
    Json event{{"step", m_last.step},
               {"epoch", m_last.epoch},
               {"steps", m_steps},
               {"loss", m_loss / n},
               {"replicas", replicas},
               {"metrics", metrics},
               {"lr", m_last.learningRate},
               {"time_ms",
                {{"step", m_stepMs / n}, {"compute", m_computeMs / n}, {"comm", m_commMs / n}, {"input", m_inputMs / n}}},
               {"samples_per_sec", m_stepMs > 0 ? static_cast<double>(samples) / (m_stepMs / 1000.0) : 0.0}};
    *this = StepWindow();
    return event;
}

Json StepWindow::record(const StepSample& s, const Json& metrics)
{
    Json losses = Json::array();
    int64_t samples = 0;
    for (const auto& r : s.replicas) {
        losses.push_back(r.loss);
        samples += r.samples;
    }
    Json record{{"step", s.step},       {"epoch", s.epoch},         {"loss", s.loss},
                {"replica_loss", losses}, {"samples", samples},     {"lr", s.learningRate},
                {"step_ms", s.stepMs},  {"compute_ms", s.computeMs}, {"comm_ms", s.commMs},
                {"input_ms", s.inputMs}};
    if (!metrics.empty())
        record["metrics"] = metrics;
    return record;
}

} // namespace strata::run
