"""The column codecs of scalar batches, kept importable here for the format's modules.

They are the scalars kind's codec and live with it (:mod:`visualdl._kinds.columns`): the
kinds import nothing from the formats, so that the two layers form no loop.
"""

from __future__ import annotations

from visualdl._kinds.columns import decode_column, encode_float_column, encode_int_column

__all__ = ["decode_column", "encode_float_column", "encode_int_column"]
