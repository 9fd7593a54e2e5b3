# Helpers shared by the rule files: dataset lists, paths, resources.
from fxai.data.config import check_numbers
from fxai.data.fetch import mirror_dir

check_numbers(config)  # .inf / .nan pass the schemas' bounds; name the key instead


def datasets_of(section, key="datasets"):
    """Dataset names listed in config[section][key] (empty when the section is off)."""
    sec = config.get(section) or {}
    return list(sec.get(key) or []) if sec.get("enabled", True) else []


def log_path(name):
    return f"{RESULTS}/logs/{name}.log"


def data_mirror():
    """The mirror directory: FXAI_DATA_MIRROR wins over config data.mirror ("" when unset);
    an error naming the setting when it is set but is not a directory."""
    return str(mirror_dir((config.get("data") or {}).get("mirror")) or "")


OUTPUTS = []  # each rule file appends the final outputs of its section


def all_outputs():
    return OUTPUTS
