"""Graphs to draw (layer 6, beside the views): ONNX models, their groups and their layout. Pure.

No flask: the views call it (``server/_views/graph.py``) and the HTTP layer states its limits.

- ``model.py``: ONNX models as graphs to draw: parsed, checked, shapes inferred by
  ``onnx.shape_inference``, nodes grouped by name scope, constants folded into the nodes that
  take them.
- ``blocks.py``: structure for graphs whose names carry none: torch's dynamo exporter's module
  paths, the model's local functions, or the repeated blocks found in the graph.
- ``layout.py``: a layered top-to-bottom layout of a directed graph (Sugiyama style).
- ``graphdef.py``: a TensorBoard event file's ``GraphDef`` (torch's and tensorboardX's
  ``add_graph``, TensorFlow's graphs) converted into an ONNX model it draws, library
  functions as their callers' subgraphs.
- ``limits.py``: the limits of the graph views that the HTTP layer states too, apart so that
  importing them imports no ``onnx``.
"""
