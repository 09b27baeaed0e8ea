"""Loggers and callbacks for training frameworks that take a logger rather than a writer.

One module per framework, each importing its framework only when imported itself, so
``import visualdl`` never pulls one in: ``visualdl.integrations.lightning``,
``visualdl.integrations.transformers``, ``visualdl.integrations.keras`` and
``visualdl.integrations.clu``. PaddlePaddle's ``paddle.callbacks.VisualDL`` needs none:
it imports ``visualdl.LogWriter``, which this package provides.
"""
