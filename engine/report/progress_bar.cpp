#include "strata/report/progress_bar.h"

#include <cmath>

namespace strata::run {

namespace {
std::string formatValue(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, std::fabs(v) >= 1e-3 || v == 0 ? "%.4f" : "%.4e", v);
    return buf;
}

std::string formatSeconds(double s)
{
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%d:%02d:%02d", int(s) / 3600, int(s) / 60 % 60, int(s) % 60);
    else if (s >= 60)
        std::snprintf(buf, sizeof buf, "%d:%02d", int(s) / 60, int(s) % 60);
    else
        std::snprintf(buf, sizeof buf, "%ds", int(std::lround(s)));
    return buf;
}
} // namespace

ProgressBar::ProgressBar(std::FILE* out, bool interactive) : m_out(out), m_interactive(interactive) {}

void ProgressBar::startEpoch(int64_t epoch, int64_t epochs, int64_t steps, int64_t firstStep)
{
    m_epoch = epoch;
    m_epochs = epochs;
    m_steps = steps;
    m_firstStep = firstStep;
    m_start = std::chrono::steady_clock::now();
    m_lastDraw = {};
    if (m_interactive) {
        std::fprintf(m_out, "Epoch %lld/%lld\n", static_cast<long long>(epoch + 1), static_cast<long long>(epochs));
        std::fflush(m_out);
    }
}

std::string ProgressBar::line(int64_t done, const NamedValues& values, bool final) const
{
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    const int64_t width = 30;
    const int64_t filled = m_steps > 0 ? done * width / m_steps : width;
    std::string bar(static_cast<size_t>(filled), '=');
    if (filled < width) {
        bar += '>';
        bar.append(static_cast<size_t>(width - filled - 1), '.');
    }
    const int digits = static_cast<int>(std::to_string(m_steps).size());
    char head[64];
    std::snprintf(head, sizeof head, "%*lld/%lld [", digits, static_cast<long long>(done),
                  static_cast<long long>(m_steps));
    std::string text = head + bar + "]";
    const int64_t stepsThisRun = done - m_firstStep;
    if (final) {
        const double perStep = stepsThisRun > 0 ? elapsed / static_cast<double>(stepsThisRun) : 0;
        char tail[64];
        if (perStep < 0.001)
            std::snprintf(tail, sizeof tail, " - %s %.0fus/step", formatSeconds(elapsed).c_str(), perStep * 1e6);
        else
            std::snprintf(tail, sizeof tail, " - %s %.0fms/step", formatSeconds(elapsed).c_str(), perStep * 1000);
        text += tail;
    } else if (stepsThisRun > 0) {
        const double eta = elapsed / static_cast<double>(stepsThisRun) * static_cast<double>(m_steps - done);
        text += " - ETA: " + formatSeconds(eta);
    }
    for (const auto& [name, value] : values)
        text += " - " + name + ": " + formatValue(value);
    return text;
}

void ProgressBar::clear()
{
    if (m_interactive && m_drawn) {
        std::fputs("\r\033[K", m_out);
        m_drawn = false;
    }
}

void ProgressBar::update(int64_t done, const NamedValues& values)
{
    if (!m_interactive)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastDraw < std::chrono::milliseconds(100))
        return;
    m_lastDraw = now;
    clear();
    std::fputs(line(done, values, false).c_str(), m_out);
    std::fflush(m_out);
    m_drawn = true;
}

void ProgressBar::endEpoch(int64_t done, const NamedValues& values)
{
    clear();
    if (!m_interactive)
        std::fprintf(m_out, "Epoch %lld/%lld ", static_cast<long long>(m_epoch + 1), static_cast<long long>(m_epochs));
    std::fprintf(m_out, "%s\n", line(done, values, true).c_str());
    std::fflush(m_out);
}

void ProgressBar::message(const std::string& text)
{
    clear();
    std::fprintf(m_out, "%s\n", text.c_str());
    std::fflush(m_out);
}

} // namespace strata::run
