"""The model of the parameter-server demo: data shards, a numpy MLP, its ONNX export, sample pictures.

Scikit-learn's handwritten digits (1,797 images of 8x8 pixels, shipped with the package,
nothing downloaded) are split into a training set, sharded per trainer, and a held-out
validation set. The network is 64 -> hidden (ReLU) -> 10 (softmax), trained with
cross-entropy; its parameters are a dict of named arrays that the pservers shard.
"""

from __future__ import annotations

import numpy as np
from onnx import ModelProto, TensorProto, checker, helper, numpy_helper
from PIL import Image, ImageDraw

PARAM_NAMES = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def load_data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(x_train, y_train, x_val, y_val)``: pixels scaled to [0, 1], 20% held out."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    x, y = x[order], y[order]
    cut = int(len(y) * 0.8)
    return x[:cut], y[:cut], x[cut:], y[cut:]


def shard(x: np.ndarray, y: np.ndarray, rank: int, world: int) -> tuple[np.ndarray, np.ndarray]:
    """The examples of trainer ``rank``: every ``world``-th one, as data-parallel readers do."""
    return x[rank::world], y[rank::world]


def init_params(hidden: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "fc1.weight": rng.normal(0, np.sqrt(2 / 64), (64, hidden)).astype(np.float32),
        "fc1.bias": np.zeros(hidden, np.float32),
        "fc2.weight": rng.normal(0, np.sqrt(1 / hidden), (hidden, 10)).astype(np.float32),
        "fc2.bias": np.zeros(10, np.float32),
    }


def forward(params: dict[str, np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(hidden pre-activation, hidden activation, class probabilities)``."""
    z1 = x @ params["fc1.weight"] + params["fc1.bias"]
    h = np.maximum(z1, 0)
    logits = h @ params["fc2.weight"] + params["fc2.bias"]
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return z1, h, p


def loss_and_grads(
    params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray
) -> tuple[float, float, dict[str, np.ndarray]]:
    """Mean cross-entropy, accuracy and the gradients of the loss, by backpropagation."""
    z1, h, p = forward(params, x)
    n = len(y)
    loss = float(-np.log(p[np.arange(n), y] + 1e-12).mean())
    accuracy = float((p.argmax(axis=1) == y).mean())
    d_logits = p.copy()
    d_logits[np.arange(n), y] -= 1
    d_logits /= n
    d_h = d_logits @ params["fc2.weight"].T
    d_z1 = d_h * (z1 > 0)
    grads = {
        "fc1.weight": x.T @ d_z1,
        "fc1.bias": d_z1.sum(axis=0),
        "fc2.weight": h.T @ d_logits,
        "fc2.bias": d_logits.sum(axis=0),
    }
    return loss, accuracy, {k: v.astype(np.float32) for k, v in grads.items()}


def accuracy(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    return float((forward(params, x)[2].argmax(axis=1) == y).mean())


def to_onnx(params: dict[str, np.ndarray]) -> ModelProto:
    """The network as an ONNX model (Gemm, Relu, Gemm, Softmax) with the weights as initializers."""
    hidden = params["fc1.bias"].size
    nodes = [
        helper.make_node("Gemm", ["pixels", "fc1.weight", "fc1.bias"], ["/fc1/Gemm_output_0"], name="/fc1/Gemm"),
        helper.make_node("Relu", ["/fc1/Gemm_output_0"], ["/act/Relu_output_0"], name="/act/Relu"),
        helper.make_node("Gemm", ["/act/Relu_output_0", "fc2.weight", "fc2.bias"], ["logits"], name="/fc2/Gemm"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="/head/Softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "digits_mlp",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 10])],
        initializer=[numpy_helper.from_array(params[name], name) for name in PARAM_NAMES],
        doc_string=f"64 -> {hidden} (ReLU) -> 10 (softmax), trained on scikit-learn's digits",
    )
    model = helper.make_model(
        graph, producer_name="visualdl-demo", opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )
    checker.check_model(model)
    return model


def sample_grid(x: np.ndarray, y: np.ndarray, predicted: np.ndarray, columns: int = 4) -> np.ndarray:
    """Digits upscaled 4x in a grid, each with its predicted label (green: right, red: wrong)."""
    cell = 40
    rows = -(-len(x) // columns)
    image = Image.new("RGB", (columns * cell, rows * cell), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for i, (pixels, label, guess) in enumerate(zip(x, y, predicted, strict=True)):
        r, c = divmod(i, columns)
        digit = Image.fromarray((255 - pixels.reshape(8, 8) * 255).astype(np.uint8)).resize(
            (32, 32), Image.Resampling.NEAREST
        )
        image.paste(digit.convert("RGB"), (c * cell + 4, r * cell + 6))
        colour = (0, 140, 0) if guess == label else (200, 0, 0)
        draw.text((c * cell + 30, r * cell), str(int(guess)), fill=colour)
    return np.asarray(image)
