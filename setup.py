"""Packaging: one import namespace, ``visualdl``.

The checkout's top-level folders are mapped into it: ``sdk/`` -> ``visualdl.sdk``,
``server/`` -> ``visualdl.server``, ``proto/`` -> ``visualdl.proto``, and
``frontend_static/`` is installed as package data at ``visualdl/frontend_static``.
Nothing named ``sdk`` or ``server`` lands in site-packages.
"""

import os
import re

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _version() -> str:
    with open(os.path.join(HERE, "visualdl", "_version.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _static_files() -> list:
    root = os.path.join(HERE, "frontend_static")
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if not name.endswith((".py", ".pyc")):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return out


def _packages() -> list:
    """The import packages: each mapped top-level folder and every subpackage below it."""
    roots = {"visualdl": "visualdl", "visualdl.sdk": "sdk", "visualdl.server": "server", "visualdl.proto": "proto"}
    out = ["visualdl.frontend_static"]
    for package, folder in roots.items():
        for dirpath, dirnames, filenames in os.walk(os.path.join(HERE, folder)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            if "__init__.py" in filenames:
                rel = os.path.relpath(dirpath, os.path.join(HERE, folder))
                out.append(package if rel == "." else package + "." + rel.replace(os.sep, "."))
    return out


with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
    LONG_DESCRIPTION = f.read()

setup(
    name="visualdl",
    version=_version(),
    description="Training-log visualizer for single and distributed jobs: scalars, images, histograms, ONNX graphs",
    long_description=LONG_DESCRIPTION,
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.11",
    packages=_packages(),
    package_dir={
        "visualdl": "visualdl",
        "visualdl.sdk": "sdk",
        "visualdl.server": "server",
        "visualdl.proto": "proto",
        "visualdl.frontend_static": "frontend_static",
    },
    package_data={
        "visualdl": ["py.typed"],
        "visualdl.proto": ["*.proto", "*.pyi", "*.md"],
        "visualdl.frontend_static": _static_files(),
    },
    include_package_data=False,
    install_requires=[
        "flask>=3.0",
        # The committed visualdl_log_pb2.py is protoc gencode 7.35.1 and checks the runtime.
        "protobuf>=7.35.1",
        "numpy>=1.26",
        "pillow>=10",
        "onnx>=1.16",
        "plotly>=5.20",
        # Native CRC-32C for the record framing: ~100x a pure-Python table.
        "google-crc32c>=1.5",
        # A production multi-threaded WSGI server, pure Python, for `visualdl --logdir`.
        "waitress>=3.0",
        # JSON of chart data: numpy arrays serialized natively, several times faster than
        # json.dumps of lists, exact shortest round-trip floats.
        "orjson>=3.10",
        # One filesystem layer for logdirs given as URLs (s3://, gs://, az://, hdfs://,
        # memory://): pure Python, and each store's package plugs into it (extras below).
        "fsspec>=2024.2",
        # Custom scalar layouts' regular expressions come from the logs: RE2 matches in linear
        # time, where Python's re backtracks for hours holding the GIL (server/_patterns.py).
        # A hand-written bound would need a process per match; RE2 is a small native wheel.
        "google-re2>=1.1",
        # System metrics of a writer's process and host (sdk/_sysmetrics.py): CPU times,
        # memory, disk and network counters on every platform; a small native wheel. The
        # sampler still runs without it, and says what it could not record.
        "psutil>=5.9",
    ],
    extras_require={
        # GPU metrics through NVML (sdk/_gpumetrics.py): NVIDIA's own bindings (pynvml).
        "gpu": ["nvidia-ml-py>=12.535"],
        # Unit tests: `pytest` over the package, the format, the server and the CLI.
        "test": [
            "pytest>=8",
            "hypothesis>=6.100",
            # The inner loop on both cores: pytest -m "not e2e" -n 2 (tests/README.md).
            "pytest-xdist>=3.5",
            # Every API answer in the tests is checked against the JSON Schema of the OpenAPI document.
            "jsonschema>=4.18",
            # The generator of proto/visualdl_log_pb2.py; tests/formats/test_proto.py checks it is fresh.
            "grpcio-tools==1.85.1",
            # tests/e2e/packaging/test_packaging.py builds a wheel without build isolation.
            "setuptools>=70.1",
            "wheel",
            # LogWriter.add_figure draws matplotlib figures (an optional dependency for users).
            "matplotlib>=3.8",
            # Logdirs in S3: s3fs against moto's S3 API server (ThreadedMotoServer) on loopback.
            "s3fs>=2024.2",
            "moto[s3]>=5.0",
            "flask-cors>=4",  # moto's server needs it beside flask
        ],
        # End-to-end tests: a real browser, the demos on real engines, a real notebook kernel.
        "e2e": [
            # Browser tests drive Debian's chromium (.ci/test installs it) through playwright.
            "playwright>=1.40",
            # The distributed demo runs end to end in the tests.
            "scikit-learn>=1.3",
            # demo/ddp_train.py under torchrun. Pinned: 2.13.0 is a CPU build; from the public
            # index an unpinned torch (or this one without the CPU index) pulls CUDA packages.
            "torch==2.13.0",
            # torch's dynamo ONNX exporter (tests/graph/test_graph_structure.py exports with it).
            "onnxscript>=0.5",
            # The projector's UMAP (tests/server/test_api_kinds.py projects with it).
            "umap-learn>=0.5",
            # add_graph of a PaddlePaddle Layer, exported by paddle.onnx.export (CPU build).
            "paddlepaddle>=3.0",
            "paddle2onnx>=2.0",
            # tests/notebook/test_notebook.py runs a real notebook in a real kernel.
            "nbclient>=0.10",
            "nbformat>=5.10",
            "ipykernel>=6.29",
            # visualdl.integrations.lightning and .transformers, tested against the real frameworks.
            "lightning>=2.2",
            "transformers>=4.40",
            "accelerate>=0.26",  # transformers' Trainer needs it
            # visualdl.integrations.keras on Keras 3's torch and jax backends, and .clu with
            # clu's MetricWriter and a flax training loop (jax, jaxlib: CPU wheels).
            "keras>=3.0",
            "jax>=0.4.20",
            "clu>=0.0.10",
            "flax>=0.8",
        ],
        # Lint, format check and type check (.ci/typecheck).
        "dev": ["ruff>=0.6", "mypy>=1.10", "types-protobuf"],
        # The projector's t-SNE (scikit-learn) and UMAP (umap-learn); PCA needs neither.
        "projector": ["scikit-learn>=1.3", "umap-learn>=0.5"],
        # %load_ext visualdl and notebook.display() need IPython; the figures do not.
        "notebook": ["ipython>=8"],
        # Logdirs in object storage, by protocol (visualdl/_storage/objects.py names the one missing).
        "s3": ["s3fs>=2024.2"],
        "gcs": ["gcsfs>=2024.2"],
        "azure": ["adlfs>=2024.2"],
        "hdfs": ["pyarrow>=14"],
        # demo/ps_train.py trains on scikit-learn's digits (shipped with it, no download).
        "demo": ["scikit-learn>=1.3"],
        # demo/ddp_train.py: PyTorch DDP under torchrun, on the CPU.
        "ddp": ["scikit-learn>=1.3", "torch==2.13.0"],
        # Peers measured in the same benchmark run: tensorboardX writes TensorBoard's format,
        # tensorboard reads it (its Python loader and its server). The tests run every
        # benchmark in its quick mode, so the test command installs these too.
        "bench": ["tensorboardX>=2.6", "tensorboard>=2.17"],
    },
    entry_points={"console_scripts": ["visualdl = visualdl._cli:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3.11",
        "License :: OSI Approved :: Apache Software License",
    ],
)
