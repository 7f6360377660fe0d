#!/usr/bin/python3
"""PyTorch side of the training benchmark: the model, data and step of strata-bench-train.

Run with Debian's /usr/bin/python3 (python3-torch). Prints one JSON line with the same
fields as strata-bench-train. bench_train.py sets OMP_NUM_THREADS, MKL_NUM_THREADS and
OPENBLAS_NUM_THREADS to --threads before starting it: they must be in the environment
before torch loads its BLAS, or OpenBLAS starts one thread per core and oversubscribes.

    torch_train.py --model mlp|cnn|cnn-bn|lstm|gemm --batch N --threads T [--seconds S] [--warmup-steps W]
                   [--device cpu|cuda]

On CUDA the model runs in float32 without TF32 (PyTorch enables TF32 for cuDNN convolutions
by default; the engine uses plain float32 unless asked), the batch is copied from host memory
every step as the engine does, and the clock reads after torch.cuda.synchronize().
"""

import argparse
import json
import os
import resource
import sys
import time

import torch
from torch import nn


class LstmNet(nn.Module):
    """strata-bench-train's LSTM model: nn.LSTM over (batch, 50, 32), the last step's output
    through nn.Linear(64, 10). (nn.LSTM has two bias vectors where Keras has one.)"""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 64, batch_first=True)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


def build_model(name):
    """The models of strata-bench-train; the CNN takes NCHW, PyTorch's native layout."""
    if name == "lstm":
        return LstmNet()
    if name == "mlp":
        return nn.Sequential(
            nn.Flatten(),
            nn.Linear(28 * 28, 128), nn.ReLU(),
            nn.Linear(128, 10))
    if name == "gemm":
        return nn.Sequential(
            nn.Linear(4096, 4096), nn.ReLU(),
            nn.Linear(4096, 4096), nn.ReLU(),
            nn.Linear(4096, 4096), nn.ReLU(),
            nn.Linear(4096, 10))
    if name == "cnn-bn":
        # Keras' defaults: momentum 0.99 (PyTorch counts it the other way) and epsilon 1e-3.
        return nn.Sequential(
            nn.Conv2d(3, 32, 3, bias=False), nn.BatchNorm2d(32, eps=1e-3, momentum=0.01), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, bias=False), nn.BatchNorm2d(64, eps=1e-3, momentum=0.01), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(6 * 6 * 64, 64), nn.ReLU(),
            nn.Linear(64, 10))
    return nn.Sequential(
        nn.Conv2d(3, 32, 3), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(6 * 6 * 64, 64), nn.ReLU(),
        nn.Linear(64, 10))


def input_shape(name):
    return {"mlp": (28, 28), "gemm": (4096,), "lstm": (50, 32)}.get(name, (3, 32, 32))


def train_flops_per_sample(model, shape):
    """Same convention as strata-bench-train: 2 * MACs of Linear and Conv2d forward, the
    same again for weight and input gradients, except the first layer's input gradient; an
    LSTM over T steps 2 T (in + hidden) 4 hidden forward, the same for its weight gradients,
    2 T hidden 4 hidden for the gradient carried back a step, and its input gradient's
    2 T in 4 hidden unless it is the first layer."""
    if isinstance(model, LstmNet):
        steps, features = shape
        lstm = model.lstm
        width = 4 * lstm.hidden_size
        flops = 2.0 * steps * width * (2.0 * (features + lstm.hidden_size) + lstm.hidden_size)
        return flops + 2.0 * model.fc.in_features * model.fc.out_features * 3.0
    flops = 0.0
    first = True
    x = torch.zeros((1,) + shape)
    with torch.no_grad():
        for layer in model:
            x = layer(x)
            macs = 0
            if isinstance(layer, nn.Linear):
                macs = x.numel() * layer.in_features
            elif isinstance(layer, nn.Conv2d):
                kh, kw = layer.kernel_size
                macs = x.numel() * kh * kw * layer.in_channels // layer.groups
            if macs:
                flops += 2.0 * macs * (2.0 if first else 3.0)
                first = False
    return flops


def loaded_blas():
    """The BLAS library this process loaded (Debian's python3-torch takes whichever libblas.so.3
    the alternatives system points at: netlib's reference BLAS, or OpenBLAS when installed)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = {line.split()[-1] for line in maps if "blas" in line.split()[-1].lower()}
    except OSError:
        return "unknown"
    resolved = sorted({os.path.realpath(p) for p in paths})
    return ", ".join(resolved) if resolved else "none"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "cnn", "cnn-bn", "lstm", "gemm"), default="mlp")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--batches", type=int, default=100,
                        help="size of the pre-loaded dataset, in batches")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    # Counted on a CPU copy (a forward of one example), before the seed fixes the weights.
    flops = train_flops_per_sample(build_model(args.model), input_shape(args.model))
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
    model = build_model(args.model).to(device)
    shape = input_shape(args.model)
    loss_fn = nn.CrossEntropyLoss()
    # eps as Keras (and the engine) use it; it does not change the cost.
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)

    # Pre-loaded data in its stored type (uint8 pixels), converted one batch at a time.
    examples = args.batches * args.batch
    gen = torch.Generator().manual_seed(args.seed)
    pixels = torch.randint(0, 256, (examples,) + shape, dtype=torch.uint8, generator=gen)
    labels = torch.randint(0, 10, (examples,), dtype=torch.int64, generator=gen)

    step = 0
    loss_sum = 0.0  # the last step's loss, a sanity check in the JSON

    def run_step():
        nonlocal step
        first = (step % args.batches) * args.batch
        step += 1
        x = pixels[first:first + args.batch].to(device).float() / 255
        y = labels[first:first + args.batch].to(device)
        # set_to_none: PyTorch 2's default and its fastest path.
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    def synchronize():
        if args.device == "cuda":
            torch.cuda.synchronize()

    for _ in range(args.warmup_steps):
        run_step()
    synchronize()
    warmup = step
    start = time.perf_counter()
    last = None
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= args.seconds:
            synchronize()
            elapsed = time.perf_counter() - start
            break
        last = run_step()
    steps = step - warmup
    if last is not None:
        # Read once, at the end: a per-step .item() is not part of the step.
        loss_sum = float(last.item())

    rate = steps * args.batch / elapsed
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "framework": "torch",
        "model": args.model,
        "device": args.device,
        "batch": args.batch,
        "threads": args.threads,
        "samples_per_sec": rate,
        "steps": steps,
        "seconds": elapsed,
        "train_flops_per_sample": flops,
        "gflops": rate * flops / 1e9,
        "peak_rss_bytes": usage.ru_maxrss * 1024,
        "dataset_bytes": pixels.numel() * pixels.element_size()
        + labels.numel() * labels.element_size(),
        "last_loss": loss_sum,
        "torch": torch.__version__,
        "torch_blas": loaded_blas(),
        "torch_threads": torch.get_num_threads(),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
