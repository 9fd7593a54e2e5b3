"""One explanation per row of a table: ``explain_rows(model, rows)`` for the many-instance
case of the library (the workflow's rules do the same with run files and resumption)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

from fxai.explain.extract import find_axp, find_cxp
from fxai.explain.names import explanation
from fxai.oracles.base import TimeLimitExceeded, valid_time_limit
from fxai.oracles.registry import for_model

log = logging.getLogger(__name__)


def explain_rows(model, rows, kind: str = "axp", time_limit: float | None = None, **kw):
    """A pandas DataFrame with one explanation per row of ``rows`` (a DataFrame, its index
    kept, a list of dicts of feature name to value, or a 2-D array): ``prediction``,
    ``features`` (indices), ``names``, ``explanation`` (its :func:`~fxai.explain.describe`
    text), ``cpu_s`` and ``status``
    ("ok", or "time limit": ``features`` is then the weak AXp / CXp reached, or empty, and
    the explanation says it is weak, not minimal).

    ``kind``: "axp" (:func:`find_axp`) or "cxp" (:func:`find_cxp`; a row whose prediction
    cannot change gets no features and status "constant"). ``time_limit``: CPU seconds per
    row. Keywords go to :func:`fxai.oracles.for_model`. Progress is logged (INFO) every
    5 CPU s.

    Parameters
    ----------
    model : object
        A fitted model, as :func:`fxai.oracles.for_model` takes it.
    rows : pandas.DataFrame, list of dict or 2-D array
        The instances.
    kind : {"axp", "cxp"}
    time_limit : float or None
        CPU seconds per row.
    **kw
        Keywords of :func:`fxai.oracles.for_model`.

    Returns
    -------
    pandas.DataFrame
        One row per instance (see above).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50], "smoker": [0, 1, 0, 1]})
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "no", "yes"])
    >>> explain_rows(clf, X.iloc[2:], time_limit=10)[["prediction", "explanation", "status"]]
      prediction                   explanation status
    2         no   IF age = 40 THEN class 'no'     ok
    3        yes  IF age = 50 THEN class 'yes'     ok
    """
    import numpy as np
    import pandas as pd

    if kind not in ("axp", "cxp"):
        raise ValueError(f"kind must be 'axp' or 'cxp', not {kind!r}")
    valid_time_limit(time_limit)
    if isinstance(rows, Mapping):
        raise TypeError("explain_rows takes several rows (a DataFrame, a list of dicts or a "
                        "2-D array), not one dict: pass [row], or use explain.find_axp")
    named = isinstance(rows, pd.DataFrame) or (
        isinstance(rows, Sequence) and len(rows) > 0 and all(isinstance(r, Mapping)
                                                           for r in rows))
    frame = rows if isinstance(rows, pd.DataFrame) else (
        pd.DataFrame(list(rows)) if named else pd.DataFrame(np.atleast_2d(rows)))
    out = []
    t0 = shown = time.process_time()
    for n, (label, row) in enumerate(frame.iterrows()):
        start = time.process_time()
        o = for_model(model, row if named else row.to_numpy(), **kw)
        status = "ok"
        try:
            xp = (find_axp if kind == "axp" else find_cxp)(o, time_limit=time_limit)
        except TimeLimitExceeded as e:
            xp, status = e.partial, "time limit"
        if xp is None and status == "ok":
            xp, status = [], "constant"
        d = explanation(o, tuple(sorted(xp or [])), kind, minimal=status != "time limit")
        text = str(d) if xp is not None else (
            f"(none: the time limit was reached before a weak {kind.upper()})")
        out.append({"row": label, "prediction": d.prediction, "features": list(d.features),
                    "names": list(d.names), "explanation": text,
                    "cpu_s": time.process_time() - start, "status": status})
        now = time.process_time()
        if now - shown >= 5.0:
            shown = now
            log.info("explain_rows: %d of %d rows, %.1f CPU s", n + 1, len(frame), now - t0)
    columns = ["row", "prediction", "features", "names", "explanation", "cpu_s", "status"]
    return pd.DataFrame(out, columns=columns).set_index("row").rename_axis(frame.index.name)
