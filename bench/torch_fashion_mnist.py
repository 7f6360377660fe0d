#!/usr/bin/python3
"""The default experiment in PyTorch, for the accuracy comparison: Flatten -> Linear(784, 128)
-> ReLU -> Linear(128, 10) on Fashion-MNIST (Debian's dataset-fashion-mnist), Adam 1e-3,
batch 32, 5 epochs, cross-entropy from logits, reshuffled every epoch. Prints the test
accuracy after each epoch. Run with /usr/bin/python3 (Debian's python3-torch)."""
import argparse
import gzip
import struct

import numpy as np
import torch
from torch import nn

DATA = "/usr/share/datasets/fashion-mnist"


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, kind, rank = struct.unpack(">HBB", data[:4])
    dims = struct.unpack(">" + "I" * rank, data[4:4 + 4 * rank])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keras-init", action="store_true",
                        help="Glorot-uniform kernels and zero biases, as Keras (and Strata) initialize")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    x_train = torch.from_numpy(idx(f"{DATA}/train-images-idx3-ubyte.gz").copy())
    y_train = torch.from_numpy(idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64))
    x_test = torch.from_numpy(idx(f"{DATA}/t10k-images-idx3-ubyte.gz").copy()).float() / 255
    y_test = torch.from_numpy(idx(f"{DATA}/t10k-labels-idx1-ubyte.gz").astype(np.int64))

    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    if args.keras_init:
        for layer in model:
            if isinstance(layer, nn.Linear):
                nn.init.xavier_uniform_(layer.weight)
                nn.init.zeros_(layer.bias)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(x_train))
        for start in range(0, len(order), 32):
            batch = order[start:start + 32]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[batch].float() / 255), y_train[batch])
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
        print(f"epoch {epoch + 1}: test accuracy {accuracy:.4f}", flush=True)


if __name__ == "__main__":
    main()
