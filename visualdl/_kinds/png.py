"""A PNG's shape read from its header: images of every format are listed by it without
decoding a pixel (our writer's PNGs, and the PNGs inside foreign event files)."""

from __future__ import annotations

__all__ = ["png_shape"]

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG colour type -> channels (a palette is RGB; its alpha, if any, is not counted).
_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}


def png_shape(png: bytes) -> tuple[int, int, int] | None:
    """``(height, width, channels)`` from a PNG's IHDR chunk, without decoding pixels;
    None when ``png`` does not start like a PNG (JPEG, GIF, garbage)."""
    if len(png) < 26 or png[:8] != _PNG_SIGNATURE or png[12:16] != b"IHDR":
        return None
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return height, width, _PNG_CHANNELS.get(png[25], 0)
