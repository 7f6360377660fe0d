#pragma once
// EventFileWriter: one TensorBoard event file of scalars, written the way TensorFlow 2's
// tf.summary.scalar writes them (and so Keras' TensorBoard callback): TFRecord framing
// (tf_record.h) of tensorflow.Event protobufs (app/tensorboard/proto, TensorFlow's own
// definitions), the first record `file_version: "brain.Event:2"`, then one Event per value:
// a Summary.Value whose tensor is a rank-0 DT_FLOAT with the value's bytes in
// tensor_content, and, on a tag's first value in the file, the metadata of TensorBoard's
// "scalars" plugin (DATA_CLASS_SCALAR).
//
// TensorBoard takes a step that comes again in a series for a restart and drops the points
// from that step on; so a tag's steps only increase here: a value at a step not above the
// tag's last one is not written.
//
// Plain C++, no Qt; one thread at a time.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>

namespace tensorflow {
class Event;
}

namespace strata::app::tensorboard {

class EventFileWriter {
public:
    EventFileWriter();
    ~EventFileWriter(); // closes the file, unflushed values lost
    EventFileWriter(const EventFileWriter&) = delete;
    EventFileWriter& operator=(const EventFileWriter&) = delete;

    // Creates `path` (replacing a file there) and writes the file_version record at
    // `wallTime` (unix seconds: TensorBoard's start time of the run). False with the reason.
    bool open(const std::string& path, double wallTime, std::string* error);
    // Queues a value of `tag` at `step`; false when the step is not above the tag's last.
    bool addScalar(const std::string& tag, int64_t step, double wallTime, float value);
    // Writes what is queued and hands it to the system, so a reader sees whole records.
    // False with the reason (the first write that failed since the last flush).
    bool flush(std::string* error);
    bool close(std::string* error);

    const std::string& path() const { return m_path; }
    int64_t points() const { return m_points; }
    size_t tags() const { return m_lastStep.size(); }

private:
    void writePending();

    std::string m_path;
    std::FILE* m_file = nullptr;
    std::string m_pending;    // framed records not yet written
    std::string m_serialized; // one Event's bytes, reused
    std::string m_writeError;
    std::unique_ptr<tensorflow::Event> m_event; // reused for every value
    std::unordered_map<std::string, int64_t> m_lastStep; // per tag
    int64_t m_points = 0;
};

} // namespace strata::app::tensorboard
