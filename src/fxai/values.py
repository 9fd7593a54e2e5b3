"""Plain Python values from numpy ones: class labels and feature values as the user wrote
them (``np.int64(1)`` -> ``1``, ``np.str_('yes')`` -> ``'yes'``; a Python object as is)."""

from __future__ import annotations

import numpy as np


def plain(v):
    """``v`` as a plain Python value.

    Examples
    --------
    >>> plain(np.int64(1)), plain(np.str_("yes")), plain("no"), plain(2.5)
    (1, 'yes', 'no', 2.5)
    """
    return v.item() if isinstance(v, np.generic) else v
