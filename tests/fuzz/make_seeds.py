#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/seed-*) from the
project's own fixtures: the example experiments, the JSON documents embedded in the unit
tests (raw strings), the small data files the data tests build, and files a real engine run
writes (events, a checkpoint). Regression inputs (regression-*) are kept as they are.
Also the dictionaries (tests/fuzz/dict/<target>.dict): JSON's tokens and the names the
schema docs and the layer registry define.

  tests/fuzz/make_seeds.py [BUILD_DIR]   (default build/: its strata-engine makes the run files)
"""
import glob
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
RAW = re.compile(r'R"([^(\s]*)\((.*?)\)\1"', re.S)


def raw_strings(path):
    """The C++ raw string literals of a source file, adjacent ones joined as the compiler does."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    out, last_end, current = [], None, None
    for m in RAW.finditer(text):
        if current is not None and text[last_end:m.start()].strip() == "":
            current += m.group(2)
        else:
            if current is not None:
                out.append(current)
            current = m.group(2)
        last_end = m.end()
    if current is not None:
        out.append(current)
    return out


def json_objects(paths, keep=lambda j: True):
    found = []
    for path in paths:
        for s in raw_strings(path):
            try:
                j = json.loads(s)
            except ValueError:
                continue
            if isinstance(j, dict) and keep(j):
                found.append(s.encode())
    return found


def write(target, seeds):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for f in glob.glob(os.path.join(d, "seed-*")):
        os.remove(f)
    unique = []
    for s in seeds:
        if s not in unique:
            unique.append(s)
    for i, s in enumerate(unique):
        with open(os.path.join(d, "seed-%03d" % i), "wb") as f:
            f.write(s)
    print("%-18s %3d seeds" % (target, len(unique)))


def idx(dims, values):
    return struct.pack(">BBBB", 0, 0, 8, len(dims)) + b"".join(struct.pack(">I", d) for d in dims) + bytes(values)


def idx_pair(labels, images):
    return struct.pack("<H", len(labels)) + labels + images


def fashion_mnist_slice(n):
    """The first n examples of Debian's Fashion-MNIST (dataset-fashion-mnist), as IDX files."""
    base = "/usr/share/datasets/fashion-mnist/"
    with gzip.open(base + "t10k-images-idx3-ubyte.gz") as f:
        f.read(16)
        pixels = f.read(28 * 28 * n)
    with gzip.open(base + "t10k-labels-idx1-ubyte.gz") as f:
        f.read(8)
        labels = f.read(n)
    return idx([n], labels), idx([n, 28, 28], pixels)


def engine_run(build):
    """Events and a checkpoint from a real run of the tiny synthetic experiment."""
    engine = os.path.join(ROOT, build, "engine", "strata-engine")
    experiment = {
        "strata": 1, "name": "seed", "seed": 1,
        "model": {"input_shape": [4], "layers": [{"type": "Dense", "units": 3, "activation": "relu"},
                                                 {"type": "Dense", "units": 2}]},
        "data": {"source": {"type": "synthetic", "task": "classification", "samples": 64,
                            "test_samples": 16, "features": 4, "classes": 2}},
        "training": {"epochs": 2, "batch_size": 16, "optimizer": {"type": "adam"},
                     "loss": {"type": "sparse_categorical_crossentropy", "from_logits": True},
                     "metrics": ["accuracy"], "checkpoint": {"every_epochs": 1}},
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "seed.strata.json")
        json.dump(experiment, open(path, "w"))
        run = os.path.join(tmp, "run")
        subprocess.run([engine, "train", path, "--run-dir", run, "--events", "none", "--quiet"], check=True)
        events = open(glob.glob(os.path.join(run, "events-*.jsonl"))[0], "rb").read()
        checkpoints = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(run, "**", "ckpt-*.strata"),
                                                                       recursive=True))]
    return events, checkpoints


def rendezvous_request(token, op, args):
    p = struct.pack("<H", len(token)) + token + op
    for a in args:
        p += struct.pack("<I", len(a)) + a
    return struct.pack("<I", len(p)) + p


def rendezvous_answer(payload):
    return struct.pack("<I", len(payload)) + payload


def ps_message(header, payload=()):
    frames = [json.dumps(header).encode()] + [struct.pack("<%df" % len(p), *p) for p in payload]
    return bytes([len(frames)]) + b"".join(struct.pack("<H", len(f)) + f for f in frames)


JSON_TOKENS = ['{', '}', '[', ']', ',', ':', '"', 'true', 'false', 'null', '-', '0', '1', '1e9', '-1', '0.5',
               '1e400', '18446744073709551615', '9223372036854775808', '\\u0000', '\\"']


def dictionary(target, tokens):
    d = os.path.join(ROOT, "tests", "fuzz", "dict")
    os.makedirs(d, exist_ok=True)
    unique = sorted(set(tokens))
    with open(os.path.join(d, target + ".dict"), "w") as f:
        f.write("# libFuzzer dictionary, written by tests/fuzz/make_seeds.py\n")
        for t in unique:
            f.write('"%s"\n' % "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "\\x%02x" % ord(c)
                                        for c in t))
    print("%-18s %3d tokens" % (target + ".dict", len(unique)))


def doc_names(path):
    """The field and value names a schema doc writes in backquotes."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_:]*)`", text))


def quoted_names(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    return set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', text))


def dictionaries():
    json_names = lambda names: JSON_TOKENS + ['"%s"' % n for n in names]
    layers = quoted_names("engine/schema/layer_types.cpp") | quoted_names("engine/schema/layer_fields.cpp")
    experiment = set().union(*(quoted_names("engine/schema/%s.cpp" % f) for f in
                               ("experiment", "read_strategy", "read_data", "read_training", "write_experiment")))
    cluster = set().union(*(quoted_names("engine/schema/%s.cpp" % f) for f in ("cluster_spec", "cluster_rules", "tf_config")))
    model = set().union(*(quoted_names("engine/schema/%s.cpp" % f) for f in ("keras_import", "model_json", "model_shapes")))
    dictionary("experiment", json_names(doc_names("docs/experiment-schema.md") | layers | experiment | cluster))
    dictionary("keras_model", json_names(layers | model | quoted_names("engine/schema/keras_format.cpp")))
    dictionary("tf_config", json_names(cluster) +
               ['"localhost:', '"127.0.0.1:', '"[::1]:', ':2222"', ':65536"', '"host:'])
    dictionary("event_line", json_names(doc_names("docs/event-schema.md") |
                                        quoted_names("app/metrics/event_parse.cpp") |
                                        quoted_names("app/metrics/metrics_store.cpp")) + ["\n", "\r\n"])
    dictionary("checkpoint", json_names(quoted_names("engine/rundir/checkpoint.cpp")) +
               ["STRATACK", "\x01\x00\x00\x00", "\xff\xff\xff\xff", "\x00\x00\x00\x80"])
    dictionary("ps_message", json_names(quoted_names("engine/ps/messages.cpp") |
                                        quoted_names("engine/ps/shard_store.cpp") |
                                        {"init", "pull", "push", "state", "ping", "shutdown", "step", "stop",
                                         "result", "hello", "heartbeat"}))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    dictionaries()

    experiments = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, "resources/experiments/*.json")))]
    write("experiment", experiments + json_objects(["tests/engine/tst_experiment.cpp"]))

    write("keras_model", json_objects(["tests/engine/tst_model_spec.cpp", "tests/engine/tst_keras_format.cpp"],
                                      lambda j: "class_name" in j))

    write("tf_config", json_objects(["tests/engine/tst_cluster_spec.cpp", "tests/engine/tst_engine_cli.cpp"],
                                    lambda j: "cluster" in j or "task" in j))

    labels, images = fashion_mnist_slice(3)
    write("idx_loader", [
        idx_pair(labels, images),
        idx_pair(gzip.compress(labels, mtime=0), gzip.compress(images, mtime=0)),
        idx_pair(idx([2], [0, 9]), idx([2, 2, 3], range(12))),   # data_test_files.h's small images
        idx_pair(idx([1], [1]), idx([1, 1, 1, 1], [255])),      # rank 4
    ])

    record = lambda label: bytes([label]) + bytes(i % 256 for i in range(3072))
    write("cifar10_loader", [record(3), record(0) + record(9)])

    text = open(os.path.join(ROOT, "tests/engine/tst_text_loader.cpp"), encoding="utf-8").read()
    lines = re.findall(r'"((?:[^"\\]|\\.)*\\t(?:[^"\\]|\\.)*\\n)"', text)
    labelled = [bytes(l, "utf-8").decode("unicode_escape").encode("latin-1") for l in lines]
    write("text_loader", [b"\x10\x08" + l for l in labelled] +
          [b"\x3e\x1f" + b"".join(labelled), b"\x05\x04pos\tA <b>great</b> film.\nneg\tdull, dull, dull\n"])

    events, checkpoints = engine_run(build)
    event_lines = [l for l in events.split(b"\n") if l.strip()]
    by_type = {}
    for l in event_lines:
        by_type.setdefault(json.loads(l).get("type"), l)
    write("event_line", list(by_type.values()) + [events[:4096]] +
          [s.encode() for s in raw_strings("tests/app/tst_event_parse.cpp") if s.startswith("{")])

    write("checkpoint", checkpoints)

    token = b"0123456789abcdef0123456789abcdef"
    write("rendezvous_frame", [
        rendezvous_request(token, b"J", [b"worker:1"]) + rendezvous_request(token, b"S", [b"gloo/1", b"\x00\x01addr"])
        + rendezvous_request(token, b"G", [b"gloo/0"]) + rendezvous_request(token, b"P", [])
        + rendezvous_request(token, b"L", []) + rendezvous_request(token, b"B", [b""]),
        rendezvous_answer(b"ok") + rendezvous_answer(b"1\x00\x01addr") + rendezvous_answer(b"0"),
        rendezvous_answer(b"worker:1 (on 127.0.0.1: connection lost without a goodbye: killed or crashed)\n"
                          b"chief:0 (failed: out of memory)\n"),
        rendezvous_answer(b""),
    ])

    # The tiny job of fuzz_ps_message.cpp: every variable in 2 shards (FixedShards) by rows:
    # kernel 4x3, bias 3, kernel 3x2, bias 2; Adam keeps 2 slots per shard.
    names = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    shards = ["%s/part_%d" % (n, i) for n in names for i in range(2)]
    shapes = [6, 6, 2, 1, 4, 2, 1, 1]
    values = lambda scale: [[scale * (i + 1) for i in range(n)] for n in shapes]
    init = ps_message({"op": "init", "iterations": 0, "slots": 2, "id": 1,
                       "shards": shards, "versions": [0] * 8},
                      [v for trio in zip(values(0.1), values(0.0), values(0.0)) for v in trio])
    pull = ps_message({"op": "pull", "id": 2})
    push = ps_message({"op": "push", "id": 3, "versions": [0] * 8, "generation": 1}, values(0.01))
    write("ps_message", [
        init + pull + push + ps_message({"op": "state", "id": 4}) + ps_message({"op": "ping", "id": 5})
        + ps_message({"op": "shutdown", "status": "completed"}),
        ps_message({"op": "step", "step": 3, "batch": 3, "epoch": 0, "run": "r1"}) + ps_message({"op": "stop"}),
        ps_message({"op": "result", "task": "worker:0", "run": "r1", "step": 3, "loss_sum": 11.5,
                    "regularization": 0, "samples": 16, "metrics": [[12, 16]], "staleness_mean": 0.5,
                    "staleness_max": 1, "step_ms": 2.5, "compute_ms": 2, "comm_ms": 0.5}),
        ps_message({"op": "hello", "task": "worker:1", "pid": 4242})
        + ps_message({"op": "heartbeat", "task": "worker:1", "pid": 4242}),
        ps_message({"versions": [1] * 8, "generation": 1, "id": 2}, values(0.1)),
        ps_message({"staleness": [0, 1, 0, 0, 2, 0, 0, 0], "versions": [2] * 8, "id": 3}),
        ps_message({"error": "the coordinator has not sent the variables yet", "id": 2}),
    ])


if __name__ == "__main__":
    main()
