"""Instances from pandas and plain Python: the helpers users call, kept under their public
name (their home is :mod:`fxai.models.schema`, which reads every row).

:func:`encode` turns a frame's categorical, text and boolean columns into the numbers the
models are fitted on; :func:`frame_domains` gives a frame's finite domains and category
labels, as ``for_model(..., domains=frame)`` reads them.
"""

from fxai.models.schema import encode, frame_domains

__all__ = ["encode", "frame_domains"]
