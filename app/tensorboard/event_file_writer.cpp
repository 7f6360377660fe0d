#include "app/tensorboard/event_file_writer.h"

#include "app/tensorboard/tf_record.h"

#include "tensorflow/core/util/event.pb.h"

#include <bit>
#include <cerrno>
#include <cstring>

namespace strata::app::tensorboard {

namespace {

// Queued records are written out past this size, between flushes.
constexpr size_t kWriteAt = 1 << 20;

std::string floatBytes(float value)
{
    static_assert(std::endian::native == std::endian::little, "tensor_content is little-endian");
    std::string bytes(sizeof value, '\0');
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
}

} // namespace

EventFileWriter::EventFileWriter() : m_event(std::make_unique<tensorflow::Event>()) {}

EventFileWriter::~EventFileWriter()
{
    if (m_file)
        std::fclose(m_file);
}

bool EventFileWriter::open(const std::string& path, double wallTime, std::string* error)
{
    m_path = path;
    m_file = std::fopen(path.c_str(), "wb");
    if (!m_file) {
        *error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    }
    tensorflow::Event first;
    first.set_wall_time(wallTime);
    first.set_file_version("brain.Event:2");
    first.mutable_source_metadata()->set_writer("strata");
    appendRecord(m_pending, first.SerializeAsString());
    return flush(error);
}

bool EventFileWriter::addScalar(const std::string& tag, int64_t step, double wallTime, float value)
{
    const auto [last, first] = m_lastStep.try_emplace(tag, step);
    if (!first) {
        if (step <= last->second)
            return false;
        last->second = step;
    }
    tensorflow::Event& e = *m_event;
    e.Clear();
    e.set_wall_time(wallTime);
    e.set_step(step);
    tensorflow::Summary::Value* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    if (first) {
        tensorflow::SummaryMetadata* metadata = v->mutable_metadata();
        metadata->mutable_plugin_data()->set_plugin_name("scalars");
        metadata->set_data_class(tensorflow::DATA_CLASS_SCALAR);
    }
    tensorflow::TensorProto* tensor = v->mutable_tensor();
    tensor->set_dtype(tensorflow::DT_FLOAT);
    tensor->mutable_tensor_shape(); // present and empty: rank 0
    tensor->set_tensor_content(floatBytes(value));
    m_serialized.clear();
    e.AppendToString(&m_serialized);
    appendRecord(m_pending, m_serialized);
    ++m_points;
    if (m_pending.size() >= kWriteAt)
        writePending();
    return true;
}

void EventFileWriter::writePending()
{
    if (!m_file || m_pending.empty())
        return;
    if (m_writeError.empty() && std::fwrite(m_pending.data(), 1, m_pending.size(), m_file) != m_pending.size())
        m_writeError = "cannot write " + m_path + ": " + std::strerror(errno);
    m_pending.clear();
}

bool EventFileWriter::flush(std::string* error)
{
    writePending();
    if (m_file && m_writeError.empty() && std::fflush(m_file) != 0)
        m_writeError = "cannot write " + m_path + ": " + std::strerror(errno);
    if (!m_writeError.empty()) {
        *error = m_writeError;
        return false;
    }
    return true;
}

bool EventFileWriter::close(std::string* error)
{
    const bool ok = flush(error);
    if (m_file && std::fclose(m_file) != 0 && ok) {
        *error = "cannot write " + m_path + ": " + std::strerror(errno);
        m_file = nullptr;
        return false;
    }
    m_file = nullptr;
    return ok;
}

} // namespace strata::app::tensorboard
