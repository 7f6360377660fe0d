#include "strata/core/error.h"

namespace strata {

namespace {
std::string joinProblems(const std::vector<ConfigProblem>& problems)
{
    if (problems.size() == 1)
        return problems.front().str();
    std::string out = std::to_string(problems.size()) + " problems:";
    for (const auto& p : problems)
        out += "\n  " + p.str();
    return out;
}
} // namespace

ConfigError::ConfigError(std::vector<ConfigProblem> problems)
    : Error(joinProblems(problems)), m_problems(std::move(problems))
{
}

ParseError::ParseError(const std::string& file, int line, int column, const std::string& what)
    : Error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": invalid JSON: " + what),
      m_line(line), m_column(column), m_detail(what)
{
}

DataError::DataError(const std::string& file, const std::string& what)
    : Error(file + ": " + what), m_file(file)
{
}

std::string ResumeError::Difference::str() const
{
    return field + ": " + checkpoint + " (checkpoint) vs " + experiment + " (experiment)";
}

ResumeError::ResumeError(const std::string& message, std::vector<Difference> differences,
                         std::vector<std::string> choices)
    : Error(message), m_differences(std::move(differences)), m_choices(std::move(choices))
{
}

InternalError::InternalError(const char* file, int line, const std::string& what)
    : Error(std::string("internal error at ") + file + ":" + std::to_string(line) + ": " + what)
{
}

} // namespace strata
