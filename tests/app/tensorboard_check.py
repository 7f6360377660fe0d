#!/usr/bin/python3
"""Checks a run exported by `strata export tensorboard` against the run's own files.

    tensorboard_check.py PROTO_DIR RUN_DIR EXPORT_DIR --primary TASK [--coordinated]

PROTO_DIR holds the .proto files Strata compiles (TensorFlow's package and field numbers);
they are compiled here with protoc --python_out and every record of every event file under
EXPORT_DIR (DIR/<run name>) is decoded with python3-protobuf:

- the TFRecord framing: the length and both masked CRC-32C of each record, computed here with
  crcmod (not Strata's code), and nothing after the last record;
- the first record is file_version "brain.Event:2"; every other one a Summary of one value:
  a rank-0 DT_FLOAT tensor of 4 bytes, the "scalars" plugin's metadata (DATA_CLASS_SCALAR) on
  each tag's first value, steps increasing within each tag;
- every value, at its step and wall time, equals what the run's events-<task>.jsonl and
  steps-<task>.jsonl say by the rules of docs/tensorboard.md, computed here from the JSON
  files; nothing more and nothing less is written.

Prints a JSON summary (values per run and tag, records checked) on stdout; exits 1 with the
first difference found.
"""

import argparse
import glob
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import crcmod.predefined

crc32c = crcmod.predefined.mkCrcFun("crc-32c")


def fail(message):
    print("tensorboard_check: " + message, file=sys.stderr)
    sys.exit(1)


def masked(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    """The records of a TFRecord file, each CRC checked."""
    with open(path, "rb") as f:
        data = f.read()
    at, out = 0, []
    while at < len(data):
        if len(data) - at < 12:
            fail(f"{path}: {len(data) - at} bytes after the last record")
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        if length_crc != masked(header):
            fail(f"{path}: record at {at}: the length's CRC is {length_crc:#x}, expected {masked(header):#x}")
        body = data[at + 12:at + 12 + length]
        if len(body) != length or len(data) < at + 16 + length:
            fail(f"{path}: record at {at} is cut short")
        (body_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        if body_crc != masked(body):
            fail(f"{path}: record at {at}: the data's CRC is {body_crc:#x}, expected {masked(body):#x}")
        out.append(body)
        at += 16 + length
    return out


# TensorFlow's field numbers, as tensorflow/core/util/event.proto, framework/summary.proto and
# framework/tensor.proto publish them: the raw bytes are checked against these too, so a wrong
# number in Strata's .proto files (which both sides of this check compile) cannot pass.
EVENT = {"wall_time": 1, "step": 2, "file_version": 3, "summary": 5, "source_metadata": 10}
SUMMARY_VALUE = {"tag": 1, "tensor": 8, "metadata": 9}
METADATA = {"plugin_data": 1, "data_class": 4}
PLUGIN_DATA = {"plugin_name": 1}
TENSOR = {"dtype": 1, "tensor_shape": 2, "tensor_content": 4}
DT_FLOAT = 1
DATA_CLASS_SCALAR = 1


def wire(data):
    """A protobuf message's fields as {number: [(wire type, value)]}: varints as ints,
    fixed64 as 8 bytes, length-delimited as bytes."""
    fields, at = {}, 0

    def varint():
        nonlocal at
        shift = value = 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while at < len(data):
        key = varint()
        number, kind = key >> 3, key & 7
        if kind == 0:
            value = varint()
        elif kind == 1:
            value, at = data[at:at + 8], at + 8
        elif kind == 2:
            length = varint()
            value, at = data[at:at + length], at + length
        elif kind == 5:
            value, at = data[at:at + 4], at + 4
        else:
            fail(f"wire type {kind} in a message")
        fields.setdefault(number, []).append((kind, value))
    return fields


def only(fields, number, kind, what):
    values = fields.get(number, [])
    if len(values) != 1 or values[0][0] != kind:
        fail(f"{what}: field {number} is {values}, expected one of wire type {kind}")
    return values[0][1]


def check_wire(body, first_of_tag, tag, step, wall_time, value):
    """The scalar's record, read from its bytes by TensorFlow's field numbers."""
    event = wire(body)
    if struct.unpack("<d", only(event, EVENT["wall_time"], 1, "Event.wall_time"))[0] != wall_time:
        fail(f"{tag}: wall_time differs in the raw bytes")
    if step != 0 and only(event, EVENT["step"], 0, "Event.step") != step:
        fail(f"{tag}: step differs in the raw bytes")
    summary = wire(only(event, EVENT["summary"], 2, "Event.summary"))
    v = wire(only(summary, 1, 2, "Summary.value"))
    if only(v, SUMMARY_VALUE["tag"], 2, "Value.tag").decode() != tag:
        fail(f"{tag}: the tag differs in the raw bytes")
    if first_of_tag:
        metadata = wire(only(v, SUMMARY_VALUE["metadata"], 2, "Value.metadata"))
        plugin = wire(only(metadata, METADATA["plugin_data"], 2, "SummaryMetadata.plugin_data"))
        if only(plugin, PLUGIN_DATA["plugin_name"], 2, "PluginData.plugin_name") != b"scalars":
            fail(f"{tag}: not the scalars plugin in the raw bytes")
        if only(metadata, METADATA["data_class"], 0, "SummaryMetadata.data_class") != DATA_CLASS_SCALAR:
            fail(f"{tag}: not DATA_CLASS_SCALAR in the raw bytes")
    tensor = wire(only(v, SUMMARY_VALUE["tensor"], 2, "Value.tensor"))
    if only(tensor, TENSOR["dtype"], 0, "TensorProto.dtype") != DT_FLOAT:
        fail(f"{tag}: not DT_FLOAT in the raw bytes")
    if only(tensor, TENSOR["tensor_shape"], 2, "TensorProto.tensor_shape") != b"":
        fail(f"{tag}: not rank 0 in the raw bytes")
    if struct.unpack("<f", only(tensor, TENSOR["tensor_content"], 2, "TensorProto.tensor_content"))[0] != value:
        fail(f"{tag}: the value differs in the raw bytes")


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def number(value):
    """A JSON value as the app reads a number field: bools and others are absent."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def integer(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def finite(value):
    return value is not None and math.isfinite(value)


def json_lines(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, "rb") as f:
        for line in f.read().split(b"\n"):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


class Expected:
    """The values docs/tensorboard.md says the export holds, from the run's JSON files."""

    def __init__(self, primary, coordinated):
        self.primary = primary
        self.coordinated = coordinated
        self.values = {}  # (run, tag) -> [(step, wall time, float32 value, computed)]

    def emit(self, run, tag, step, t, value, computed=False):
        if not finite(value):
            return
        series = self.values.setdefault((run, tag), [])
        if series and step <= series[-1][0]:
            return  # TensorBoard would take it for a restart
        series.append((step, t, f32(value), computed))

    def emit_object(self, run, values, prefix, suffix, step, t):
        for name, value in values.items():
            v = number(value)
            if v is not None:
                self.emit(run, prefix + name + suffix, step, t, v)

    def task(self, stem, events, steps):
        primary = stem == self.primary
        live_times, last_time, lr = [], None, None
        session_start, last_epoch_step, ps_reports = 0, 0, 0
        for e in events:
            t = number(e.get("t"))
            if not finite(t):
                continue
            last_time = t
            kind = e.get("type")
            if kind == "step":
                step = integer(e.get("step"))
                if step is None:
                    continue
                if not live_times or step > live_times[-1][0]:
                    live_times.append((step, t))
                if finite(number(e.get("lr"))):
                    lr = number(e.get("lr"))
                if primary and isinstance(e.get("metrics"), dict):
                    for name, value in e["metrics"].items():
                        if number(value) is not None:
                            self.emit("train", "batch_" + name, step, t, f32(number(value)))
                rate = number(e.get("samples_per_sec", e.get("samples_per_s")))
                self.emit(stem, "throughput/samples_per_second", step, t, rate)
            elif kind == "start":
                session_start = integer(e.get("resumed_from_step")) or 0
            elif kind == "epoch" and primary:
                epoch, step = integer(e.get("epoch")), integer(e.get("step"))
                if epoch is None or step is None:
                    continue
                if isinstance(e.get("train"), dict):
                    self.emit_object("train", e["train"], "epoch_", "", epoch, t)
                self.emit("train", "epoch_learning_rate", epoch, t, lr)
                ran = step - max(last_epoch_step, session_start)
                seconds = number(e.get("seconds"))
                if seconds is not None and seconds > 0 and ran > 0:
                    self.emit("train", "epoch_steps_per_second", epoch, t, ran / seconds, computed=True)
                last_epoch_step = step
                if isinstance(e.get("validation"), dict):
                    self.emit_object("validation", e["validation"], "epoch_", "", epoch, t)
                    self.emit_object("validation", e["validation"], "evaluation_", "_vs_iterations", step, t)
            elif kind == "done" and primary:
                steps_done = integer(e.get("steps"))
                if isinstance(e.get("test"), dict) and steps_done is not None:
                    self.emit_object("test", e["test"], "evaluation_", "_vs_iterations", steps_done, t)
            elif kind == "evaluation":
                step = integer(e.get("step"))
                if isinstance(e.get("metrics"), dict) and step is not None:
                    self.emit_object(stem, e["metrics"], "evaluation_", "_vs_iterations", step, t)
            elif kind == "device":
                step = integer(e.get("step"))
                if step is None:
                    continue
                for d in e.get("devices") or []:
                    replica = integer(d.get("replica")) if isinstance(d, dict) else None
                    if replica is None:
                        continue
                    for field, suffix in (("utilization", "_utilization"), ("memory_used_bytes", "_memory_used_bytes")):
                        if number(d.get(field)) is not None:
                            self.emit(stem, f"device/replica_{replica}{suffix}", step, t, number(d.get(field)))
                if isinstance(e.get("process"), dict) and number(e["process"].get("rss_bytes")) is not None:
                    self.emit(stem, "memory/rss_bytes", step, t, number(e["process"]["rss_bytes"]))
            elif kind == "checkpoint":
                step, ms = integer(e.get("step")), number(e.get("ms"))
                if step is not None and ms is not None:
                    self.emit(stem, "checkpoint/write_ms", step, t, ms)
            elif kind == "ps":
                ps_reports += 1
                for field, tag in (("bytes_in_per_s", "bytes_in_per_second"), ("bytes_out_per_s", "bytes_out_per_second"),
                                   ("updates_per_s", "updates_per_second")):
                    if number(e.get(field)) is not None:
                        self.emit(stem, "parameter_server/" + tag, ps_reports, t, number(e.get(field)))

        last_record, epoch, loss_sum, samples = None, None, 0.0, 0.0
        coordinator = self.coordinated and primary
        for r in steps:
            step = integer(r.get("step"))
            if step is None or (last_record is not None and step <= last_record):
                continue
            last_record = step
            t = number(r.get("t"))
            if not finite(t):
                covering = [lt for s, lt in live_times if s >= step]
                t = covering[0] if covering else (last_time if last_time is not None else 0.0)
            loss = number(r.get("loss"))
            self.emit(stem, "loss/step", step, t, loss)
            for i, replica_loss in enumerate(r.get("replica_loss") or []):
                self.emit(stem, f"loss/replica_{i}", step, t, number(replica_loss))
            self.emit(stem, "learning_rate", step, t, number(r.get("lr")))
            if not coordinator:
                for field in ("step_ms", "compute_ms", "comm_ms", "input_ms"):
                    self.emit(stem, "step_time/" + field, step, t, number(r.get(field)))
            if integer(r.get("global_step")) is not None:
                self.emit(stem, "parameter_server/global_step", step, t, float(integer(r["global_step"])))
            self.emit(stem, "parameter_server/staleness_mean", step, t, number(r.get("staleness_mean")))
            self.emit(stem, "parameter_server/staleness_max", step, t, number(r.get("staleness_max")))
            if not primary:
                continue
            record_epoch = integer(r.get("epoch"))
            if record_epoch is not None and record_epoch != epoch:
                epoch, loss_sum, samples = record_epoch, 0.0, 0.0
            if finite(loss):
                n = number(r.get("samples"))
                weight = n if finite(n) and n > 0 else 1.0
                loss_sum += loss * weight
                samples += weight
                self.emit("train", "batch_loss", step, t, loss_sum / samples, computed=True)
            step_ms = number(r.get("step_ms"))
            if not coordinator and finite(step_ms) and step_ms > 0:
                self.emit("train", "batch_steps_per_second", step, t, 1000.0 / step_ms, computed=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("proto_dir")
    parser.add_argument("run_dir")
    parser.add_argument("export_dir")
    parser.add_argument("--primary", required=True)
    parser.add_argument("--coordinated", action="store_true")
    args = parser.parse_args()

    generated = tempfile.mkdtemp(prefix="strata-tb-proto-")
    protos = sorted(glob.glob(os.path.join(args.proto_dir, "**", "*.proto"), recursive=True))
    subprocess.run(["protoc", "-I", args.proto_dir, "--python_out", generated] + protos, check=True)
    sys.path.insert(0, generated)
    from tensorflow.core.util import event_pb2  # noqa: E402
    from tensorflow.core.framework import summary_pb2, types_pb2  # noqa: E402

    # What the export wrote: one event file per folder (TensorBoard run).
    written = {}  # (run, tag) -> [(step, wall time, value)]
    checked = 0
    for folder in sorted(os.listdir(args.export_dir)):
        files = glob.glob(os.path.join(args.export_dir, folder, "*tfevents*"))
        if len(files) != 1 or not os.path.basename(files[0]).startswith("events.out.tfevents."):
            fail(f"{folder}: expected one events.out.tfevents.* file, found {files}")
        bodies = records(files[0])
        checked += len(bodies)
        first = event_pb2.Event.FromString(bodies[0])
        if first.WhichOneof("what") != "file_version" or first.file_version != "brain.Event:2":
            fail(f"{files[0]}: the first record is not file_version brain.Event:2: {first}")
        if only(wire(bodies[0]), EVENT["file_version"], 2, "Event.file_version") != b"brain.Event:2":
            fail(f"{files[0]}: file_version is not field {EVENT['file_version']} in the raw bytes")
        seen_tags = set()
        for body in bodies[1:]:
            e = event_pb2.Event.FromString(body)
            if e.WhichOneof("what") != "summary" or len(e.summary.value) != 1:
                fail(f"{files[0]}: not a summary of one value: {e}")
            v = e.summary.value[0]
            if v.WhichOneof("value") != "tensor":
                fail(f"{files[0]}: {v.tag} is not a tensor summary")
            tensor = v.tensor
            if tensor.dtype != types_pb2.DT_FLOAT or len(tensor.tensor_shape.dim) != 0 or len(tensor.tensor_content) != 4:
                fail(f"{files[0]}: {v.tag} at step {e.step} is not a rank-0 float32 tensor: {tensor}")
            if v.tag not in seen_tags:
                seen_tags.add(v.tag)
                if (v.metadata.plugin_data.plugin_name != "scalars"
                        or v.metadata.data_class != summary_pb2.DATA_CLASS_SCALAR):
                    fail(f"{files[0]}: {v.tag}'s first value lacks the scalars plugin's metadata: {v.metadata}")
            elif v.HasField("metadata"):
                fail(f"{files[0]}: {v.tag} has metadata again at step {e.step}")
            (value,) = struct.unpack("<f", tensor.tensor_content)
            check_wire(body, not written.get((folder, v.tag)), v.tag, e.step, e.wall_time, value)
            series = written.setdefault((folder, v.tag), [])
            if series and e.step <= series[-1][0]:
                fail(f"{folder}/{v.tag}: step {e.step} after step {series[-1][0]}")
            series.append((e.step, e.wall_time, value))

    # What the run's files say.
    expected = Expected(args.primary, args.coordinated)
    stems = sorted({os.path.basename(p)[len("events-"):-len(".jsonl")]
                    for p in glob.glob(os.path.join(args.run_dir, "events-*.jsonl"))}
                   | {os.path.basename(p)[len("steps-"):-len(".jsonl")]
                      for p in glob.glob(os.path.join(args.run_dir, "steps-*.jsonl"))})
    for stem in stems:
        expected.task(stem, json_lines(os.path.join(args.run_dir, f"events-{stem}.jsonl")),
                      json_lines(os.path.join(args.run_dir, f"steps-{stem}.jsonl")))

    want = {key: series for key, series in expected.values.items() if series}
    if set(want) != set(written):
        fail(f"tags differ: missing {sorted(set(want) - set(written))}, unexpected {sorted(set(written) - set(want))}")
    for key in sorted(want):
        w, got = want[key], written[key]
        if len(w) != len(got):
            fail(f"{key[0]}/{key[1]}: {len(got)} values, expected {len(w)}")
        for (step, t, value, computed), (got_step, got_t, got_value) in zip(w, got):
            close = abs(got_value - value) <= 1e-6 * max(1.0, abs(value)) if computed else got_value == value
            if step != got_step or t != got_t or not close:
                fail(f"{key[0]}/{key[1]}: wrote step {got_step} at {got_t!r}: {got_value!r}; "
                     f"expected step {step} at {t!r}: {value!r}")

    summary = {"records": checked, "runs": {}}
    for (run, tag), series in sorted(written.items()):
        summary["runs"].setdefault(run, {})[tag] = len(series)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
