#pragma once
// Engine exception types. Every failure inside the engine is one of these, carrying the
// cause; the worker main turns them into an `error` event (kind = kind()) at the process edge.

#include <stdexcept>
#include <string>
#include <vector>

namespace strata {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
    // Short machine-readable category, written into the `error` event.
    virtual const char* kind() const noexcept { return "internal"; }
};

// One problem in a JSON document, located by its field path ("model.layers[2].units").
struct ConfigProblem {
    std::string path;
    std::string message;
    std::string str() const { return path.empty() ? message : path + ": " + message; }
};

// Invalid experiment or model: every problem found, not just the first.
class ConfigError : public Error {
public:
    explicit ConfigError(std::vector<ConfigProblem> problems);
    ConfigError(const std::string& path, const std::string& message)
        : ConfigError(std::vector<ConfigProblem>{{path, message}}) {}
    const char* kind() const noexcept override { return "config"; }
    const std::vector<ConfigProblem>& problems() const { return m_problems; }

private:
    std::vector<ConfigProblem> m_problems;
};

// A document that is not JSON at all: where and why.
class ParseError : public Error {
public:
    ParseError(const std::string& file, int line, int column, const std::string& what);
    const char* kind() const noexcept override { return "parse"; }
    int line() const { return m_line; }
    int column() const { return m_column; }
    // What is wrong there, without the file and position ("unexpected ','").
    const std::string& detail() const { return m_detail; }

private:
    int m_line;
    int m_column;
    std::string m_detail;
};

// Tensor shapes that do not fit together (names the layer and both shapes).
class ShapeError : public Error {
public:
    using Error::Error;
    const char* kind() const noexcept override { return "shape"; }
};

// A dataset file that is missing, truncated or not in the expected format.
class DataError : public Error {
public:
    DataError(const std::string& file, const std::string& what);
    const char* kind() const noexcept override { return "data"; }
    const std::string& file() const { return m_file; }

private:
    std::string m_file;
};

// Failure to read or write the run directory, checkpoints or event files.
class IoError : public Error {
public:
    using Error::Error;
    const char* kind() const noexcept override { return "io"; }
};

// A run directory whose checkpoint this experiment may not resume: it was written by an
// experiment that differs in a field that changes the result (rundir/resume.h). Carries each
// difference and what the user may choose instead ("fresh", "weights_only").
class ResumeError : public Error {
public:
    struct Difference {
        std::string field;      // "model.layers[1].units"
        std::string checkpoint; // the value as JSON text ("absent": the field is not there)
        std::string experiment;
        // "model.layers[1].units: 128 (checkpoint) vs 256 (experiment)"
        std::string str() const;
    };
    ResumeError(const std::string& message, std::vector<Difference> differences, std::vector<std::string> choices);
    const char* kind() const noexcept override { return "resume"; }
    const std::vector<Difference>& differences() const { return m_differences; }
    const std::vector<std::string>& choices() const { return m_choices; }

private:
    std::vector<Difference> m_differences;
    std::vector<std::string> m_choices;
};

// Training diverged: a NaN or Inf loss.
class NumericError : public Error {
public:
    using Error::Error;
    const char* kind() const noexcept override { return "numeric"; }
};

// A CUDA, cuBLAS, cuDNN or NCCL call that failed, or a GPU out of memory: names the device
// and the call.
class GpuError : public Error {
public:
    using Error::Error;
    const char* kind() const noexcept override { return "gpu"; }
};

// Assumption broken inside the engine: names the source location.
class InternalError : public Error {
public:
    InternalError(const char* file, int line, const std::string& what);
};

} // namespace strata

#define STRATA_CHECK(cond, what)                                                       \
    do {                                                                               \
        if (!(cond))                                                                   \
            throw ::strata::InternalError(__FILE__, __LINE__, std::string(#cond) + ": " + (what)); \
    } while (0)
