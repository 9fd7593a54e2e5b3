"""Figures without pyplot: no backend is chosen and no global list of open figures is kept,
so drawing neither depends on nor changes the process's matplotlib state (``MPLBACKEND``, an
interactive session, the figures of a notebook or another library)."""

from __future__ import annotations

from matplotlib.figure import Figure


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize=None, **subplots):
    """``(figure, axes)`` as ``plt.subplots`` returns them. ``figure.savefig`` renders by the
    file's type (Agg for PNG); the figure is freed with its last reference, no close needed."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **subplots)
