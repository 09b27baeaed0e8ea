"""The notebook's figures and their style (:mod:`visualdl.notebook` is the public face)."""
