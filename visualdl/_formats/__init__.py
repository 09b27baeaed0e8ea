"""Log formats (layer 2: above the kinds, below storage): bytes in, records out.

Nothing here opens a file: the index hands over the bytes it read, and a blob's record is
checked again from a file the caller opened. Each format is a folder that builds one
:class:`~visualdl._formats.format.Format` (its names, framing, record check, decoder and
blob span), and ``table.py`` lists them in ``FORMATS``, the table the reader dispatches
through.

- ``format.py``: :class:`Format` and :class:`Decoder`, the one interface every format sits behind.
- ``table.py``: ``FORMATS``: which format a file is, by its name.
- ``framing.py`` and ``framebatch.py``: the TFRecord framing that ours and TensorBoard's
  share, one record at a time and many small ones at once with a fixed number of numpy passes.
- ``recordcheck.py``: a record of that framing checked again where it was read, a chunk at a
  time, before its blob is served.
- ``protowire.py``: the protobuf wire format walked by hand, keys and lengths only (what a
  record too large to read whole is pruned with, and where a blob's bytes lie).
- ``points.py``: the points batch: scalar points of many records given as one ``ScalarBlock``.
- ``writerstate.py``: :class:`WriterState`, what a file's records say of its writer.
- ``fatal.py``: the text of a log's fatal-signal sidecar (``<log>.fatal``, faulthandler's dump).
- ``projector.py``: TensorBoard's projector files (``projector_config.pbtxt`` and the tensors,
  metadata and sprite it names), parsed.
- ``vdlog/``: our own format (``format.py``, ``logformat.py``: the name marker and version;
  ``decoder.py``; ``writerrecords.py``: the table of per-writer records).
- ``tfevents/``: TensorBoard's event files (``format.py``, ``decode.py``, ``values.py``,
  ``scalars.py``: scalar events many at once, ``graphs.py``, ``blobs.py``: where an image's
  or a clip's bytes lie in an ``Event``).
- ``vdl2/``: VisualDL 2's log files (``format.py``, ``framing.py``: an 8-byte length and no
  checksum, ``decode.py``, ``values.py``, ``scalars.py``).
"""
