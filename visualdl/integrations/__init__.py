"""Loggers and callbacks for training frameworks that take a logger rather than a writer.

An edge (layer 9), on the SDK only. One module per framework, each importing its framework
only when imported itself, so ``import visualdl`` never pulls one in. PaddlePaddle's
``paddle.callbacks.VisualDL`` needs none: it imports ``visualdl.LogWriter``, which this
package provides.

- ``keras.py``: a Keras 3 callback that writes ``keras.callbacks.TensorBoard``'s runs and
  tags, the graph through ``model.export`` to ONNX.
- ``clu.py``: a clu ``MetricWriter`` for JAX training loops.
- ``lightning.py``: a Lightning ``Logger``: ``TensorBoardLogger``'s layout and tags, rank 0 or
  every rank into its own file, the rank from Lightning's strategy.
- ``transformers.py``: a Transformers ``TrainerCallback`` that writes what
  ``TensorBoardCallback`` writes.
- ``_hparams.py``: the configs they hand over turned into ``add_hparams`` values.
"""
