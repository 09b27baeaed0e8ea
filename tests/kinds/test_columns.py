"""Column codecs: lossless for every int64 and float64 bit pattern, compact for real logs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from visualdl._kinds.columns import decode_column, encode_float_column, encode_int_column
from visualdl.errors import LogFormatError
from visualdl.proto import pb

I8, F8 = np.dtype(np.int64), np.dtype(np.float64)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, st.integers(0, 300)))
def test_int_column_roundtrip(values):
    column = pb.Column.FromString(encode_int_column(values).SerializeToString())
    np.testing.assert_array_equal(decode_column(column, values.size, I8, "steps"), values)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 300), elements=st.floats(allow_nan=True, allow_infinity=True)))
def test_float_column_roundtrip_bit_exact(values):
    column = pb.Column.FromString(encode_float_column(values).SerializeToString())
    decoded = decode_column(column, values.size, F8, "values")
    assert decoded.view(np.uint64).tolist() == values.view(np.uint64).tolist()


def test_arithmetic_steps_take_no_bytes():
    column = encode_int_column(np.arange(5, 50_005, 5))
    assert column.codec == pb.ARITHMETIC and column.data == b"" and (column.start, column.stride) == (5, 5)


def test_wall_times_shrink_with_shuffle_deflate():
    walls = 1_700_000_000.0 + np.cumsum(np.random.default_rng(0).uniform(0.01, 0.02, 10_000))
    column = encode_float_column(walls)
    assert column.codec == pb.SHUFFLE_DEFLATE
    assert len(column.data) < 0.8 * walls.nbytes


def test_incompressible_values_stay_raw():
    values = np.random.default_rng(0).standard_normal(1000)
    assert encode_float_column(values).codec == pb.RAW


@pytest.mark.parametrize(
    ("column", "match"),
    [(pb.Column(codec=pb.RAW, data=b"\x00" * 7), "7 bytes for 1 elements"),
     (pb.Column(codec=pb.SHUFFLE_DEFLATE, data=b"not zlib"), "bad deflate data"),
     (pb.Column(codec=17), "unknown codec 17")],  # type: ignore[arg-type]
)  # fmt: skip
def test_bad_columns_raise_format_errors(column, match):
    with pytest.raises(LogFormatError, match=match):
        decode_column(column, 1, F8, "values")
