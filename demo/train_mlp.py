"""A small, real training run instrumented with LogWriter.

A two-layer numpy MLP learns to separate three interleaved spirals (data generated
here, nothing downloaded), with mini-batch SGD and momentum. It logs what a user of
a training-log visualizer looks at: per-step loss, accuracy, learning rate and
gradient norm; per-epoch validation accuracy, weight and gradient histograms, a
picture of the decision regions; a text summary; and the network as an ONNX graph.

    python demo/train_mlp.py --logdir demo_logs/mlp
    visualdl --logdir demo_logs
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from visualdl import LogWriter

PALETTE = np.array([[230, 85, 13], [49, 130, 189], [49, 163, 84]], np.float64)


def spirals(n_per_class: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for label in range(3):
        r = np.linspace(0.05, 1.0, n_per_class)
        theta = label * 2 * np.pi / 3 + r * 4.0 + rng.normal(0, 0.2, n_per_class)
        xs.append(np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1))
        ys.append(np.full(n_per_class, label))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


class MLP:
    def __init__(self, hidden: int, rng: np.random.Generator) -> None:
        self.params = {
            "fc1.weight": rng.normal(0, np.sqrt(2 / 2), (2, hidden)).astype(np.float32),
            "fc1.bias": np.zeros(hidden, np.float32),
            "fc2.weight": rng.normal(0, np.sqrt(2 / hidden), (hidden, 3)).astype(np.float32),
            "fc2.bias": np.zeros(3, np.float32),
        }
        self.velocity = {k: np.zeros_like(v) for k, v in self.params.items()}

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = self.params
        h = np.maximum(x @ p["fc1.weight"] + p["fc1.bias"], 0)
        logits = h @ p["fc2.weight"] + p["fc2.bias"]
        return h, logits

    def loss_and_grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, float, dict[str, np.ndarray]]:
        h, logits = self.forward(x)
        shifted = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(shifted)
        probs /= probs.sum(axis=1, keepdims=True)
        n = x.shape[0]
        loss = float(-np.log(probs[np.arange(n), y] + 1e-12).mean())
        acc = float((probs.argmax(axis=1) == y).mean())
        d_logits = probs
        d_logits[np.arange(n), y] -= 1
        d_logits /= n
        d_h = (d_logits @ self.params["fc2.weight"].T) * (h > 0)
        grads = {
            "fc2.weight": h.T @ d_logits,
            "fc2.bias": d_logits.sum(axis=0),
            "fc1.weight": x.T @ d_h,
            "fc1.bias": d_h.sum(axis=0),
        }
        return loss, acc, grads

    def step(self, grads: dict[str, np.ndarray], lr: float, momentum: float = 0.9) -> None:
        for name, grad in grads.items():
            self.velocity[name] = momentum * self.velocity[name] - lr * grad
            self.params[name] += self.velocity[name]

    def to_onnx(self) -> bytes:
        """The network as ONNX, with name scopes as a PyTorch export would write them."""
        p = self.params
        inits = [numpy_helper.from_array(v, name) for name, v in p.items()]
        nodes = [
            helper.make_node("Gemm", ["input", "fc1.weight", "fc1.bias"], ["/fc1/Gemm_output_0"], name="/fc1/Gemm"),
            helper.make_node("Relu", ["/fc1/Gemm_output_0"], ["/act/Relu_output_0"], name="/act/Relu"),
            helper.make_node("Gemm", ["/act/Relu_output_0", "fc2.weight", "fc2.bias"], ["logits"], name="/fc2/Gemm"),
            helper.make_node("Softmax", ["logits"], ["probs"], name="/head/Softmax", axis=1),
        ]
        graph = helper.make_graph(
            nodes,
            "spiral_mlp",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 2])],
            [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 3])],
            initializer=inits,
        )
        model = helper.make_model(graph, producer_name="visualdl-demo", opset_imports=[helper.make_opsetid("", 17)])
        return model.SerializeToString()


def decision_image(model: MLP, size: int = 64) -> np.ndarray:
    """The predicted class over [-1.2, 1.2]^2 as an RGB picture, confidence as brightness."""
    grid = np.linspace(-1.2, 1.2, size, dtype=np.float32)
    xx, yy = np.meshgrid(grid, grid[::-1])
    _, logits = model.forward(np.stack([xx.ravel(), yy.ravel()], axis=1))
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    colors = probs @ PALETTE
    return np.clip(colors, 0, 255).astype(np.uint8).reshape(size, size, 3)


def train(logdir: str, epochs: int, hidden: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    x, y = spirals(600, rng)
    order = rng.permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    x_train, y_train, x_val, y_val = x[:split], y[:split], x[split:], y[split:]
    model = MLP(hidden, rng)
    batch = 32
    steps_per_epoch = len(x_train) // batch
    step = 0
    val_acc = 0.0
    with LogWriter(logdir, display_name="spiral-mlp") as writer:
        writer.add_graph(model.to_onnx(), name="spiral_mlp")
        writer.add_text("config", f"hidden={hidden}, batch={batch}, epochs={epochs}, seed={seed}", 0)
        for epoch in range(epochs):
            perm = rng.permutation(len(x_train))
            for i in range(steps_per_epoch):
                idx = perm[i * batch : (i + 1) * batch]
                start = time.perf_counter()
                loss, acc, grads = model.loss_and_grads(x_train[idx], y_train[idx])
                lr = 0.05 * 0.5 * (1 + np.cos(np.pi * step / (epochs * steps_per_epoch)))
                model.step(grads, lr)
                grad_norm = float(np.sqrt(sum(float((g * g).sum()) for g in grads.values())))
                writer.add_scalar("train/loss", loss, step)
                writer.add_scalar("train/accuracy", acc, step)
                writer.add_scalar("train/lr", lr, step)
                writer.add_scalar("train/grad_norm", grad_norm, step)
                writer.add_scalar("perf/step_ms", (time.perf_counter() - start) * 1e3, step)
                step += 1
            _, logits = model.forward(x_val)
            val_acc = float((logits.argmax(axis=1) == y_val).mean())
            writer.add_scalar("val/accuracy", val_acc, step)
            writer.add_scalar("train/epoch", epoch + 1, step)
            for name, value in model.params.items():
                writer.add_histogram(f"weights/{name}", value, step, buckets=30)
                writer.add_histogram(f"grads/{name}", grads[name], step, buckets=30)
            writer.add_image("decision_regions", decision_image(model), step)
        writer.add_text("summary", f"final validation accuracy: **{val_acc:.3f}** after {step} steps", step)
    return {"val_accuracy": val_acc, "steps": float(step)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default="demo_logs/mlp")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    result = train(args.logdir, args.epochs, args.hidden, args.seed)
    print(
        f"trained {int(result['steps'])} steps in {time.perf_counter() - start:.1f} s; "
        f"validation accuracy {result['val_accuracy']:.3f}; logs in {args.logdir}"
    )


if __name__ == "__main__":
    main()
