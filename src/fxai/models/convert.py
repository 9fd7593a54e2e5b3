"""The converters: one record per kind of library model, the way every model comes in.

A :class:`Converter` says what a kind of model (:mod:`fxai.models.kinds`) accepts, which
keywords it takes, how it is converted to the form the oracles read, the stamp of its
fitted state (the conversion is cached while the stamp holds) and its input schema: a
:class:`~fxai.models.schema.Schema` over numbers, or the converted
:class:`~fxai.models.coded.Encoded` model's columns (``coded``). :func:`converter` asks
for the model's kind once; :func:`takes` and :func:`convert` follow the record.

Keywords mean the same for every kind that takes them: ``domains`` (per feature its finite
values, or None for a real one; or a DataFrame), ``vote`` (a random forest's vote rule,
"soft" or "hard") and ``missing`` (NaN is a value of every feature). One that does not apply
is refused with :data:`WHY`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

from fxai.models.boosted import booster
from fxai.models.kinds import is_kind, is_sklearn, kind

KEYWORDS = ("domains", "vote", "missing")
#: keyword -> what it applies to (the one message of a keyword that does not apply)
WHY = {
    "domains": "domains (finite values per feature) applies to trees, forests, XGBoost, "
               "HistGradientBoosting, GradientBoosting, LightGBM, naive Bayes and fxai's own "
               "models; a Pipeline's encoders and splits give its columns' values",
    "vote": "vote (a random forest's vote rule) applies to random and extra-trees forests "
            "and to Pipelines ending in one",
    "missing": "missing (NaN as a value of every feature) applies to HistGradientBoosting, "
               "LightGBM and random-forest models",
}


@dataclass(frozen=True)
class Converter:
    """How one kind of library model comes in (see the module)."""

    kind: str
    keywords: Callable[[object], tuple[str, ...]]
    convert: Callable[..., object]  # (model, domains, vote, missing) -> converted
    stamp: Callable[[object, tuple], object]  # (model, options) -> its fitted state
    owner: Callable[[object], object] = lambda m: m  # the object keying the cache
    coded: bool = False  # its schema: the converted Encoded model's columns
    coded_with_missing: bool = False  # so, when NaN is a value (``missing``)

    def codes(self, missing: bool) -> bool:
        """Is the model converted to an Encoded one (its schema: its columns)?"""
        return self.coded or (self.coded_with_missing and bool(missing))


def _tree(model, domains, vote, missing):
    from fxai.models.dtree import from_sklearn

    return from_sklearn(model, domains=domains)


def _forest(model, domains, vote, missing):
    from fxai.models import forest

    if missing:
        return forest.coded(model, vote=vote or "soft")
    return forest.from_sklearn(model, vote=vote or "soft")


def _xgboost(model, domains, vote, missing):
    from fxai.models.scores import convert

    return convert(model)


def _pipeline(model, domains, vote, missing):
    from fxai.models import pipeline

    return pipeline.read(model, vote=vote or "soft")


def _hist_gradient(model, domains, vote, missing):
    from fxai.models import hist_gradient

    return hist_gradient.from_sklearn(model, missing)


def _gradient_boosting(model, domains, vote, missing):
    from fxai.models import gradient_boosting

    return gradient_boosting.from_sklearn(model)


def _lightgbm(model, domains, vote, missing):
    from fxai.models import lgbm

    return lgbm.from_lightgbm(model, missing)


def _lgbm_booster(model):
    from fxai.models.lgbm import booster

    return booster(model)


def _domains_key(domains) -> object:
    return None if domains is None else tuple(None if d is None else tuple(d) for d in domains)


def _fitted_state(model) -> tuple:
    """Every fitted attribute of a Pipeline's steps (a refit makes new ones)."""
    return tuple(v for _, s in model.steps for k, v in sorted(getattr(s, "__dict__", {}).items())
                 if k.endswith("_") and not k.startswith("__"))


def _pipeline_keywords(model) -> tuple[str, ...]:
    return ("vote",) if is_kind(model.steps[-1][1], "forest") else ()


def _always(*keywords: str) -> Callable[[object], tuple[str, ...]]:
    return lambda model: keywords


#: kind -> its converter (None: fxai's own models and registered ones, read as they are)
CONVERTERS = {c.kind: c for c in (
    Converter("pipeline", _pipeline_keywords, _pipeline,
              lambda m, o: (o[1], *_fitted_state(m)), owner=lambda m: m.steps[-1][1],
              coded=True),
    Converter("tree", _always("domains"), _tree,
              lambda m, o: (m.tree_, _domains_key(o[0]))),
    Converter("forest", _always("domains", "vote", "missing"), _forest,
              lambda m, o: (tuple(e.tree_ for e in m.estimators_), o[1], o[2]),
              coded_with_missing=True),
    Converter("nbc", _always("domains"),
              lambda m, *_: m, lambda m, o: None),
    Converter("hist_gradient", _always("domains", "missing"),
              _hist_gradient, lambda m, o: (m._predictors, o[2]), coded=True),
    Converter("gradient_boosting", _always("domains"), _gradient_boosting,
              lambda m, o: (m.estimators_, m.init_)),
    Converter("lightgbm", _always("domains", "missing"), _lightgbm,
              lambda m, o: (_lgbm_booster(m).current_iteration(),
                            _lgbm_booster(m).best_iteration, o[2]),
              owner=_lgbm_booster, coded=True),
    Converter("xgboost", _always("domains"), _xgboost,
              lambda m, o: (booster(m).num_boosted_rounds(),), owner=booster),
)}


def converter(model) -> Converter | None:
    """The converter of ``model``'s kind (None: read as it is); an unfitted scikit-learn
    model raises scikit-learn's ``NotFittedError``."""
    k = kind(model)
    if k is not None and k != "pipeline" and is_sklearn(model):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(model)
    return CONVERTERS.get(k)


def takes(conv: Converter | None, model) -> tuple[str, ...]:
    """The keywords ``model`` takes (fxai's own models: ``domains``, for their oracles)."""
    return ("domains",) if conv is None else conv.keywords(model)


def refused(conv: Converter | None, model, options: dict) -> list[str]:
    """The keywords of ``options`` (``domains``, ``vote``, ``missing``; None or False: not
    given) that ``model`` does not take."""
    return [k for k in KEYWORDS if options.get(k) is not None and options.get(k) is not False
            and k not in takes(conv, model)]


def check_keywords(conv: Converter | None, model, options: dict, who: str) -> None:
    """TypeError for the first keyword of ``options`` that ``model`` does not take, saying
    why (:data:`WHY`)."""
    for k in refused(conv, model, options)[:1]:
        raise TypeError(f"{who}: a {type(model).__name__} takes no keyword {k!r}: {WHY[k]}")


_CACHE: dict[int, tuple[weakref.ref, object, object]] = {}  # id -> (ref, stamp, converted)


def convert(conv: Converter | None, model, domains=None, vote: str | None = None,
            missing: bool = False):
    """``model`` converted by ``conv`` (None: ``model`` itself), once per live model object
    and stamp (see :mod:`fxai.oracles.registry`)."""
    if conv is None:
        return model
    options = (domains, vote, missing)
    owner, stamp = conv.owner(model), conv.stamp(model, options)
    final = model.steps[-1][1] if conv.kind == "pipeline" else owner
    outputs = getattr(final, "n_outputs_", 1)
    if isinstance(outputs, int) and outputs > 1:
        raise TypeError(f"a {type(final).__name__} with {outputs} outputs (fitted on a "
                        f"{outputs}-column target): fxai explains a classifier of one "
                        "class label per row; fit one model per target column")
    key = id(owner)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is owner and _same(hit[1], stamp):
        return hit[2]
    value = conv.convert(model, domains, vote, missing)
    _CACHE[key] = (weakref.ref(owner, lambda _, k=key, c=_CACHE: c.pop(k, None)), stamp, value)
    return value


def _same(a, b) -> bool:
    """Stamps equal: the same objects (numbers and strings: equal values)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, int | float | str | type(None)) and type(a) is type(b):
        return a == b
    return a is b


def paired(model: object) -> object:
    """A ``(transformer, model)`` pair as the Pipeline of the two (its conversion is cached
    by the model object, as a Pipeline's); anything else unchanged."""
    if not (isinstance(model, tuple) and len(model) == 2 and is_sklearn(model[0])
            and hasattr(model[0], "transform")):
        return model
    from fxai.models.pipeline import make

    return make(*model)


@dataclass(frozen=True)
class Entry:
    """A model as it came in and one row read by its input schema (:func:`way_in`)."""

    model: object  # the model as given (a (transformer, model) pair: its Pipeline)
    kind: str | None  # its kind (None: fxai's own models and registered ones)
    converted: object  # what the oracles read (for a non-coded kind: see ``convert``)
    values: list  # the row as ``converted`` reads it (codes for a coded kind)
    labels: list  # per feature its value labels, or None
    raw: list  # the row's own values in the model's column order
    domains: list | None  # per feature its finite values as ``converted`` reads them
    raw_domains: list | None  # per feature its finite values as the model reads them
    names: list[str] | None  # the features' names as the row gives them


def coded_schema(conv: Converter, model, vote, missing: bool, columns=None):
    """The coded model (:class:`~fxai.models.coded.Encoded`) of a kind that ``codes`` its
    columns, its columns checked against ``columns`` (the user's names, in order); a model
    fitted without feature names reads rows by position, or takes ``columns`` as its
    names."""
    from fxai.models.schema import model_names

    schema = convert(conv, model, None, vote, missing)
    if model_names(model) is None:
        return schema.by_position(columns)
    return schema.restricted(None, columns)


def way_in(model: object, x, domains=None, vote: str | None = None, missing: bool = False,
           columns=None, who: str = "for_model",
           refuse: Callable[[object], None] = lambda model: None,
           need_converted: bool = True) -> Entry:
    """The one way in of a model and a row (:func:`fxai.oracles.for_model` and
    :func:`fxai.verify.check_all`): the model's kind asked once, its keywords checked
    (``who`` names the caller in the message), ``refuse(model)`` for a model of no known
    kind (before any row is read), the conversion (cached; with ``need_converted`` False
    not made for a kind whose schema does not need it), then the row read by the schema.
    """
    from fxai.models.schema import Schema, read_row, user_names

    model = paired(model)
    conv = converter(model)
    check_keywords(conv, model, {"domains": domains, "vote": vote, "missing": missing}, who)
    if conv is not None and conv.codes(missing):
        schema = coded_schema(conv, model, vote, missing, columns).restricted(domains)
        values, labels = schema.read(x)
        raw = read_row(x, schema.row_names, n=len(schema.columns), alias=schema.alias)
        return Entry(model, conv.kind, schema.model, values, labels, raw,
                     schema.code_domains, None if schema.values is None else list(schema.values),
                     user_names(x, schema.names, schema.alias) if schema.named else None)
    if conv is None:
        refuse(model)
    schema = Schema.of(model, domains, columns)
    domain_list = schema.domain_list
    converted = convert(conv, model, domain_list, vote) if need_converted else None
    values, labels = schema.read(x)
    return Entry(model, None if conv is None else conv.kind, converted, values, labels,
                 values, domain_list, domain_list,
                 None if schema.names is None else list(schema.names))
