"""fxai: reproducible benchmark harness for formal explanations of ML classifiers.

    from fxai import oracles, explain
    o = oracles.for_model(model, x)
    explain.find_axp(o); explain.find_cxp(o)
    for ev in explain.enumerate(o, target="switch", time_limit=60): ...
"""

__version__ = "0.1.0"
