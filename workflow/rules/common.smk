# Helpers shared by the rule files: dataset lists, paths, resources.
import os


def datasets_of(section, key="datasets"):
    """Dataset names listed in config[section][key] (empty when the section is off)."""
    sec = config.get(section) or {}
    return list(sec.get(key) or []) if sec.get("enabled", True) else []


def log_path(name):
    return f"{RESULTS}/logs/{name}.log"


def data_mirror():
    """The mirror directory: FXAI_DATA_MIRROR wins over config data.mirror."""
    return os.environ.get("FXAI_DATA_MIRROR") or (config.get("data") or {}).get("mirror") or ""


OUTPUTS = []  # each rule file appends the final outputs of its section


def all_outputs():
    return OUTPUTS
