"""SummaryWriter as a drop-in: what torch's writer takes, it takes, and it stores what torch's stores.

Each case makes the same calls on ``torch.utils.tensorboard.SummaryWriter`` and on ours, each
into a logdir of its own, and reads both back with LogReader (which reads torch's event files
too): steps, values, pixels, buckets and curves equal, value by value. Where torch's writer
clips, truncates or leaves out silently, ours warns once per tag; what torch's writer refuses,
ours refuses too, with a message that names the problem.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kit.writers import import_torch, torch_writer
from PIL import Image

from visualdl import LogReader, SummaryWriter

# torch's writer beside ours in every test (torch: an e2e extra); torch imported by each test.
pytestmark = pytest.mark.e2e

NAN, INF = math.nan, math.inf


def _write_both(tmp_path, calls: Callable[[Any], None]) -> tuple[LogReader, list[str]]:
    """``calls`` on torch's writer (run ``torch``; numpy's warnings on its NaN casts silenced)
    and on ours (run ``ours``); the reader of both, and the messages of the warnings ours gave."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch_writer()(str(tmp_path / "torch")) as theirs:
            calls(theirs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with SummaryWriter(tmp_path / "ours") as ours:
            calls(ours)
    reader = LogReader(tmp_path)
    assert reader.problems == []
    return reader, [str(w.message) for w in caught]


def _pixels(reader: LogReader, run: str, tag: str) -> list[tuple[int, np.ndarray]]:
    """Each image's step and decoded pixels as RGBA (ours stores grey as L, torch as RGB)."""
    return [
        (e.step, np.asarray(Image.open(io.BytesIO(reader.read_blob(e))).convert("RGBA")))
        for e in reader.images(run, tag)
    ]


def test_dropin_scalars_of_every_dtype_and_steps_as_torch_stores_them(tmp_path):
    torch = import_torch()
    values: dict[str, Any] = {
        "bf16": torch.tensor(1.3).bfloat16(),
        "fp16": torch.tensor([0.7]).half(),
        "parameter": torch.nn.Parameter(torch.tensor(2.5)),
        "requires_grad": torch.tensor(2.0, requires_grad=True) * 3,
        "np_float16": np.float16(1.5),
        "zero_d_float64": torch.tensor(-4.25, dtype=torch.float64),
        "nested": torch.tensor([[2.0]]),
        "string": "1.5",
    }
    steps: list[Any] = [2.7, -3, -0.5, torch.tensor(3.7), np.float32(9.9), "7", True, torch.tensor([5]), np.int64(-8)]
    steps += [-(2**63), 2**63 - 1]

    def calls(w: Any) -> None:
        for tag, value in values.items():
            w.add_scalar(tag, value, 1)
        for i, step in enumerate(steps):
            w.add_scalar("steps", float(i), step)
        w.add_scalar("other", 1.0, 0.5)
        w.add_scalars("group", {"a": torch.tensor(1.0).bfloat16(), "b": torch.tensor([2.0]).half()}, -1.5)

    reader, said = _write_both(tmp_path, calls)
    for run, tag in [*(("", tag) for tag in [*values, "steps", "other"]), ("/group_a", "group"), ("/group_b", "group")]:
        ours, theirs = reader.scalars(f"ours{run}", tag), reader.scalars(f"torch{run}", tag)
        assert ours.steps.tolist() == theirs.steps.tolist(), tag
        assert ours.values.astype(np.float32).tolist() == theirs.values.tolist(), tag  # torch stores float32
    assert reader.scalars("ours", "steps").steps.tolist() == sorted([2, -3, 0, 3, 9, 7, 1, 5, -8, -(2**63), 2**63 - 1])
    assert reader.scalars("ours", "bf16").values.tolist() == [1.296875]  # the bfloat16 nearest 1.3
    assert reader.scalars("ours/group_b", "group").steps.tolist() == [-1]
    # Four fractional steps of "steps", one warning; one per other tag.
    assert said == [
        "add_scalar: global_step 2.7 of tag 'steps' is not an integer; it was stored as step 2 (int(global_step)), "
        "as torch's writer does (warned once per tag)",
        "add_scalar: global_step 0.5 of tag 'other' is not an integer; it was stored as step 0 (int(global_step)), "
        "as torch's writer does (warned once per tag)",
        "add_scalars: global_step -1.5 of tag 'group' is not an integer; it was stored as step -1 "
        "(int(global_step)), as torch's writer does (warned once per tag)",
    ]


def _images() -> dict[str, tuple[Any, str, bool]]:
    """tag -> (img_tensor, dataformats, whether torch's writer clips it)."""
    torch = import_torch()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    return {
        "bf16": (torch.rand(3, 4, 5).bfloat16(), "CHW", False),
        "fp16": (torch.rand(3, 4, 5).half(), "CHW", False),
        "parameter": (torch.nn.Parameter(torch.rand(3, 4, 5)), "CHW", False),
        "requires_grad": (torch.rand(1, 4, 5, requires_grad=True) * 0.5, "CHW", False),
        "np_float16": (rng.random((4, 5, 3)).astype(np.float16), "HWC", False),
        "float64": (rng.random((4, 5)), "HW", False),
        "outside": (torch.rand(3, 4, 5) * 3 - 1, "CHW", True),
        "nan_inf": (torch.tensor([[[NAN, INF, -INF, 0.5, 0.999, 1.5]]]), "CHW", True),
        "int_300": (torch.full((1, 4, 5), 300), "CHW", True),
        "int8_negative": (torch.full((4, 5), -3, dtype=torch.int8), "HW", True),
        "int_0_255": (torch.randint(0, 256, (3, 4, 5)), "CHW", True),  # torch scales every dtype but uint8
        "int_mask": (torch.randint(0, 2, (1, 4, 5)), "CHW", False),
        "bool": (torch.rand(4, 5) > 0.5, "HW", False),
        "uint8": (torch.randint(0, 256, (3, 4, 5), dtype=torch.uint8), "CHW", False),
        "whc": (torch.rand(5, 4, 3), "WHC", False),
        "grey_alpha": (torch.rand(2, 4, 5), "CHW", False),
        "rgba_lowercase": (torch.rand(4, 5, 4), "hwc", False),
    }


def _batches() -> dict[str, tuple[Any, str, bool]]:
    torch = import_torch()
    torch.manual_seed(1)
    return {
        "batch_bf16": (torch.rand(10, 3, 4, 5).bfloat16(), "NCHW", False),
        "batch_outside": (torch.rand(3, 4, 5, 1) * 2 - 0.5, "NHWC", True),
        "batch_order": (torch.rand(2, 5, 4, 3), "NWHC", False),
    }


def test_dropin_images_of_every_dtype_scaled_and_clipped_as_torch_does(tmp_path):
    torch = import_torch()
    images, batches = _images(), _batches()

    def calls(w: Any) -> None:
        for tag, (img, dataformats, _) in images.items():
            w.add_image(tag, img, 1, dataformats=dataformats)
        w.add_image("outside", torch.full((3, 2, 2), 7.0), 2)  # clipped again: not warned again
        for tag, (img, dataformats, _) in batches.items():
            w.add_images(tag, img, -1, dataformats=dataformats)

    reader, said = _write_both(tmp_path, calls)
    assert sorted(reader.tags("ours")["images"]) == sorted([*images, *batches])
    for tag in [*images, *batches]:
        ours, theirs = _pixels(reader, "ours", tag), _pixels(reader, "torch", tag)
        assert [step for step, _ in ours] == [step for step, _ in theirs], tag
        for (_, a), (_, b) in zip(ours, theirs, strict=True):
            assert a.shape == b.shape and np.array_equal(a, b), tag
    ((_, nan_inf),) = _pixels(reader, "ours", "nan_inf")
    assert nan_inf[0, :, 0].tolist() == [0, 255, 0, 127, 254, 255]  # NaN black, x * 255 truncated, clipped
    clipped = [tag for tag, (_, _, clips) in {**images, **batches}.items() if clips]
    assert len(said) == len(clipped)
    for tag, message in zip(clipped, said, strict=True):
        assert re.match(
            rf"add_images?: img_tensor of tag '{tag}' \(torch\.\w+\) holds values outside \[0, 1\]", message
        )
        assert "scaled by 255 and clipped to [0, 255]" in message
    assert "(from -3 to -3)" in said[clipped.index("int8_negative")]
    assert "(from -inf to inf, and NaN)" in said[clipped.index("nan_inf")]


def test_dropin_pr_curves_bin_predictions_as_torch_does(tmp_path):
    torch = import_torch()
    torch.manual_seed(2)
    labels = torch.tensor([0, 1, 1, 0, 1, 0, 1, 1])
    many = torch.randint(0, 2, (2000,))
    # 0.76171875 * 126 is 95.98: 96 in float16, in which torch's writer computes a bfloat16's bucket.
    bf16 = torch.tensor([0.76171875, 0.1, 0.5, 0.9, 0.25, 0.7, 0.3, 0.8]).bfloat16()
    curves: dict[str, tuple[Any, Any, dict[str, Any], bool]] = {
        "above_one": (labels, torch.tensor([0.1, 1.5, 0.6, 0.4, 1.004, 0.3, 0.9, 2.0]), {}, True),
        "outside_nan_inf": (labels, torch.tensor([-0.1, NAN, 0.6, INF, 1.3, -INF, 0.5, 0.2]), {}, True),
        "bf16": (labels, bf16, {}, False),
        "fp16": (many, torch.rand(2000).half(), {}, False),
        "float32": (many, torch.rand(2000), {"num_thresholds": 10}, False),
        "float64": (many.numpy(), np.random.default_rng(0).random(2000), {}, False),
        "requires_grad": (labels, torch.rand(8, requires_grad=True), {"num_thresholds": 300}, False),
        "bool_labels": (labels.bool(), torch.rand(8), {}, False),
        # Label smoothing (0.1): a soft label y counts y of a positive and 1 - y of a negative.
        "soft_labels": (labels * 0.9 + 0.05, torch.rand(8), {}, False),
        "soft_float64": (np.random.default_rng(1).random(2000), np.random.default_rng(2).random(2000), {}, False),
    }

    def calls(w: Any) -> None:
        for tag, (y, p, options, _) in curves.items():
            w.add_pr_curve(tag, y, p, -4, **options)

    reader, said = _write_both(tmp_path, calls)
    for tag in curves:
        ((ours,), (theirs,)) = reader.pr_curves("ours", tag), reader.pr_curves("torch", tag)
        assert ours.step == theirs.step == -4
        for field in ("thresholds", "tp", "fp", "tn", "fn"):
            got = getattr(ours, field)
            if tag.startswith("soft") and field != "thresholds":
                got = got.astype(np.float32)  # fractional counts: torch stores them as float32, we as float64
            assert got.tolist() == getattr(theirs, field).tolist(), (tag, field)
        for field in ("precision", "recall"):  # torch stores them as float32
            assert getattr(ours, field).astype(np.float32).tolist() == getattr(theirs, field).tolist(), (tag, field)
    ((above,),) = [reader.pr_curves("ours", "above_one")]
    assert above.tp[0] + above.fn[0] == 3  # of 5 positives, 1.5 and 2.0 are left out; 1.004 counts at the top
    assert above.tp[-1] == 1
    ((soft,),) = [reader.pr_curves("ours", "soft_labels")]
    assert soft.tp[0] == pytest.approx(5 * 0.95 + 3 * 0.05) and soft.fp[0] == pytest.approx(5 * 0.05 + 3 * 0.95)
    assert said == [
        "add_pr_curve: 3 of 8 predictions of tag 'above_one' are outside [0, 1] (the first: 1.5); as torch's "
        "writer does, those below 0, from 1 + 1/(num_thresholds - 1) up, or NaN were left out of the counts "
        "(warned once per tag)",
        "add_pr_curve: 5 of 8 predictions of tag 'outside_nan_inf' are outside [0, 1] (the first: "
        "-0.10000000149011612); as torch's writer does, those below 0, from 1 + 1/(num_thresholds - 1) up, or NaN "
        "were left out of the counts (warned once per tag)",
    ]


def test_dropin_histograms_of_every_dtype_bucket_as_torchs(tmp_path):
    torch = import_torch()
    values: dict[str, Any] = {
        "bf16": torch.linspace(-3, 5, 1000).bfloat16(),
        "fp16": torch.linspace(-1, 1, 101).half(),
        "parameter": torch.nn.Parameter(torch.linspace(0, 1, 50)),
        "requires_grad": torch.linspace(0, 1, 50, requires_grad=True) * 2,
        "np_float16": np.linspace(-2, 2, 33).astype(np.float16),
        "ints": torch.tensor([0, 0, 1, 9, 10]),
        "bools": torch.tensor([True, False, True]),
    }

    def calls(w: Any) -> None:
        for tag, value in values.items():
            w.add_histogram(tag, value, -7, bins=7)
        w.add_histogram("number", 3.0, 2.9, bins=5)  # one value; step int(2.9)

    reader, said = _write_both(tmp_path, calls)
    for tag in [*values, "number"]:
        ((ours,), (theirs,)) = reader.histograms("ours", tag), reader.histograms("torch", tag)
        fields = ("step", "min", "max", "sum", "sum_squares", "count")
        assert [getattr(ours, f) for f in fields] == [getattr(theirs, f) for f in fields], tag
        if tag != "number":
            assert ours.edges.tolist() == theirs.edges.tolist() and ours.counts.tolist() == theirs.counts.tolist()
    ((number,),) = [reader.histograms("ours", "number")]
    # torch keeps the one bucket that holds 3.0, [3, 3]; ours all 5 of [2.5, 3.5], 3.0 in the middle one.
    assert (number.step, number.counts.tolist(), number.edges[2] < 3.0 < number.edges[3]) == (
        2,
        [0, 0, 1, 0, 0],
        True,
    )
    assert said == [
        "add_histogram: global_step 2.9 of tag 'number' is not an integer; it was stored as step 2 "
        "(int(global_step)), as torch's writer does (warned once per tag)"
    ]


def test_dropin_negative_steps_on_every_kind(tmp_path):
    torch = import_torch()

    def calls(w: Any) -> None:
        w.add_text("note", "hello", -2)
        w.add_audio("clip", torch.zeros(1, 10), -2)
        w.add_embedding(torch.eye(2), global_step=-2, tag="emb")
        w.add_pr_curve_raw("raw", [3, 1], [2, 0], [0, 2], [0, 2], [0.6, 1.0], [1.0, 0.3], -2, num_thresholds=2)
        w.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, run_name="hp", global_step=-2)

    reader, said = _write_both(tmp_path, calls)
    assert said == []
    assert [t.step for t in reader.texts("ours", "note")] == [
        t.step for t in reader.texts("torch", "note/text_summary")
    ]
    assert [a.step for a in reader.audio("ours", "clip")] == [a.step for a in reader.audio("torch", "clip")] == [-2]
    assert [c.step for c in reader.pr_curves("ours", "raw")] == [c.step for c in reader.pr_curves("torch", "raw")]
    assert reader.scalars("ours/hp", "hparam/acc").steps.tolist() == [-2]
    assert reader.scalars("torch/hp", "hparam/acc").steps.tolist() == [-2]
    assert [e.step for e in reader.embeddings("ours", "emb")] == [-2]  # torch: in its projector folder "-0002"


def test_dropin_bfloat16_embeddings_and_audio_are_taken(tmp_path):
    torch = import_torch()
    torch.manual_seed(3)
    mat = torch.randn(4, 3).bfloat16()
    clip = torch.linspace(-1, 1, 100).bfloat16()

    def calls(w: Any) -> None:
        w.add_embedding(mat, metadata=["a", "b", "c", "d"], tag="emb")
        w.add_audio("clip", clip, 1)
        w.add_audio("clip32", clip.float(), 1)

    reader, said = _write_both(tmp_path, calls)
    assert said == []
    (emb,) = reader.embeddings("ours", "emb")
    vectors = np.frombuffer(reader.read_blob(emb), "<f4").reshape(4, 3)
    assert vectors.tolist() == mat.float().tolist()
    # torch's writer keeps them as text beside its events: the same values.
    (tsv,) = (tmp_path / "torch").glob("*/emb/tensors.tsv")
    assert [[float(x) for x in row.split("\t")] for row in tsv.read_text().splitlines()] == vectors.tolist()
    # torch's writer makes a bfloat16 clip's PCM in float16 arithmetic, in which 1.0 * 32767 wraps
    # to -32768; this writer makes it as it makes the float32 clip of the same values.
    pcm = [reader.read_blob(reader.audio("ours", tag)[0]) for tag in ("clip", "clip32")]
    assert pcm[0] == pcm[1] and len(pcm[0]) == 44 + 2 * 100


def test_dropin_meta_tensors_log_nothing_where_torchs_writer_logs_noise(tmp_path):
    torch = import_torch()

    def meta() -> Any:
        return torch.empty((), device="meta")

    def calls(w: Any) -> None:
        w.add_scalar("loss", meta(), 1)
        w.add_scalar("loss", torch.empty(5, device="meta"), 2)  # not warned again
        w.add_scalar("loss", 0.5, 3)
        w.add_histogram("weights", torch.empty(10, device="meta"), 1)
        w.add_scalars("lr", {"a": meta(), "b": 0.1}, 1)
        w.add_hparams({"lr": 0.1}, {"hparam/acc": meta()}, run_name="hp")

    reader, said = _write_both(tmp_path, calls)
    assert reader.scalars("torch", "loss").steps.tolist() == [1, 2, 3]  # random numbers at 1 and 2
    assert (reader.scalars("ours", "loss").steps.tolist(), reader.scalars("ours", "loss").values.tolist()) == (
        [3],
        [0.5],
    )
    assert reader.tags("torch")["histograms"] == ["weights"]
    assert reader.tags("ours")["histograms"] == []
    assert reader.runs() == sorted(["ours", "ours/hp", "ours/lr_b", "torch", "torch/hp", "torch/lr_a", "torch/lr_b"])
    assert reader.tags("torch/hp")["scalars"] == ["hparam/acc"]
    assert reader.tags("ours/hp")["scalars"] == []
    hp = reader.hparams("ours/hp")
    assert hp is not None and hp.metrics == ("hparam/acc",)
    assert said == [
        f"{call}: {name} of tag {tag!r} is a tensor on the meta device, which holds no values; nothing was logged "
        "(torch's writer logs a random number; warned once per tag)"
        for call, name, tag in [
            ("add_scalar", "scalar_value", "loss"),
            ("add_histogram", "values", "weights"),
            ("add_scalars", "tag_scalar_dict['a']", "lr"),
            ("add_hparams", "metric_dict['hparam/acc']", "hparam/acc"),
        ]
    ]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda w, torch: w.add_scalar("x", 1.0, NAN),
            ValueError,
            "global_step must be an integer, or a number int() takes",
        ),
        (lambda w, torch: w.add_scalar("x", 1.0, INF), ValueError, "got float inf (cannot convert float infinity"),
        (lambda w, torch: w.add_scalar("x", 1.0, 2**63), ValueError, "global_step must be within int64"),
        (lambda w, torch: w.add_scalar("x", 1.0, -(2**63) - 1), ValueError, "global_step must be within int64"),
        (lambda w, torch: w.add_scalar("x", 1.0, np.array([4.2])), TypeError, "got ndarray array([4.2])"),
        (lambda w, torch: w.add_scalar("x", 1.0, torch.tensor(3, device="meta")), ValueError, "on the meta device"),
        (lambda w, torch: w.add_scalar("x", torch.tensor([1.0, 2.0]), 1), ValueError, "must be a single number"),
        (lambda w, torch: w.add_scalar("x", "one", 1), TypeError, "scalar_value must be a real number; got str 'one'"),
        (lambda w, torch: w.add_histogram("x", torch.tensor([]), 1), ValueError, "values must not be empty"),
        (lambda w, torch: w.add_image("x", torch.rand(5, 4, 3), 1), ValueError, "1, 2, 3 or 4 channels; got 5"),
        (
            lambda w, torch: w.add_image("x", torch.rand(4, 3), 1, dataformats="HH"),
            ValueError,
            "an order of the letters",
        ),
        (lambda w, torch: w.add_images("x", torch.rand(2, 3, 4, 5, 6), 1), ValueError, "needs 4 dimensions"),
        (
            lambda w, torch: w.add_pr_curve("x", torch.tensor([0, 1, 1]), torch.rand(2), 1),
            ValueError,
            "one element each",
        ),
    ]
    + [
        (call, TypeError, "on the meta device, which holds no values")
        for call in (
            lambda w, torch: w.add_image("x", torch.empty(3, 4, 5, device="meta"), 1),
            lambda w, torch: w.add_images("x", torch.empty(2, 3, 4, 5, device="meta"), 1),
            lambda w, torch: w.add_audio("x", torch.empty(1, 100, device="meta"), 1),
            lambda w, torch: w.add_pr_curve("x", torch.tensor([0, 1, 1]), torch.empty(3, device="meta"), 1),
        )
    ],
)
def test_dropin_refuses_what_torchs_writer_refuses(tmp_path, call, error, message):
    torch = import_torch()
    with pytest.raises(Exception):  # noqa: B017 - torch's writer raises all sorts
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch_writer()(str(tmp_path / "torch")) as theirs:
                call(theirs, torch)
    with SummaryWriter(tmp_path / "ours") as ours:
        with pytest.raises(error, match=re.escape(message)):
            call(ours, torch)
        ours.add_scalar("still", 1.0, 1)
    assert LogReader(tmp_path / "ours").scalars(".", "still").values.tolist() == [1.0]
