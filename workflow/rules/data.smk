# Data: fetch raw files (mirror or URL, sha256) -> prepare (data/prepared/<source>/<ds>.csv,
# .npz where the registry entry says table: npz, + .domains.json) -> split
# (results/<profile>/splits/<ds>.json) -> datasets table.
import re

_ANY_NAME = "|".join(re.escape(n) for n in REG.names)
_NPZ = [n for n in REG.names if table_ext(n) == "npz"]  # prepared sparse (registry: table)
_CSV_NAME = "|".join(re.escape(n) for n in REG.names if n not in _NPZ)
_NPZ_NAME = "|".join(re.escape(n) for n in _NPZ) or "(?!)"
_ANY_PREPARED = "|".join(re.escape(n) for n in [*REG.names, *USER_NAMES])  # split: user's too


def raw_manifest(wildcards):
    if data_source(wildcards.ds) != "files":
        return []
    return f"data/raw/{REG.root(wildcards.ds)}/manifest.json"


rule fetch:
    output:
        "data/raw/{root}/manifest.json",
    wildcard_constraints:
        root=_ANY_NAME,
    params:
        registry=DATA_REGISTRY,
        entry=lambda wc: entry_digest(wc.root),  # a changed URL or sha256 fetches again
        mirror=lambda wc: f"--mirror {_mirror}" if _mirror else "",
    resources:
        runtime=runtime_min(1200),  # downloads
        mem_mb=1000,
    log:
        log_path("data/fetch_{root}"),
    shell:
        "{FXAI} fetch {wildcards.root:q} --registry {params.registry} --raw-root data/raw"
        " {params.mirror} > {log} 2>&1"


rule prepare:
    input:
        raw=raw_manifest,
    output:
        table="data/prepared/{source}/{ds}.csv",
        domains="data/prepared/{source}/{ds}.domains.json",
    wildcard_constraints:
        source="files|embedded|generated",
        ds=_CSV_NAME,
    params:
        registry=DATA_REGISTRY,
        entry=lambda wc: entry_digest(wc.ds),
        checks="rows+sha256",  # domains.json records them: tables prepared before are redone
        seed=config["seed"],
        test_size=DATA["test_size"],
    group:
        "prep"
    resources:
        runtime=runtime_min(300),
        mem_mb=4000,
    log:
        log_path("data/prepare_{source}_{ds}"),
    shell:
        "{FXAI} prepare {wildcards.ds:q} --registry {params.registry} --raw-root data/raw"
        " --out-dir data/prepared/{wildcards.source} --source-order {wildcards.source}"
        " --seed {params.seed} --test-size {params.test_size} > {log} 2>&1"


use rule prepare as prepare_npz with:
    output:
        table="data/prepared/{source}/{ds}.npz",
        domains="data/prepared/{source}/{ds}.domains.json",
    wildcard_constraints:
        source="files|embedded|generated",
        ds=_NPZ_NAME,


rule split:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
    output:
        f"{RESULTS}/splits/{{ds}}.json",
    wildcard_constraints:
        ds=_ANY_PREPARED,
    params:
        prepared=prepared_dir,
        seed=config["seed"],
        test_size=DATA["test_size"],
    group:
        "prep"
    resources:
        runtime=runtime_min(60),
        mem_mb=2000,
    log:
        log_path("data/split_{ds}"),
    shell:
        "{FXAI} split {wildcards.ds:q} --prepared {params.prepared} --out {output}"
        " --test-size {params.test_size} --seed {params.seed} > {log} 2>&1"


rule datasets_table:
    input:
        csv=[prepared_file(ds) for ds in DATA_READY + USER_NAMES],
        splits=expand(f"{RESULTS}/splits/{{ds}}.json", ds=DATA_READY + USER_NAMES),
    output:
        table_files("datasets"),
    params:
        registry=DATA_REGISTRY,
        entries=entry_digest(*DATASETS),
        names=" ".join(f"{ds!r}" for ds in DATA_READY),
        order=",".join(DATA_ORDER),
        unavailable=" ".join(f"{ds!r}" for ds in DATA_UNAVAILABLE),
        user=" ".join(f"{ds!r}" for ds in USER_NAMES),
        user_prepared=USER_PREPARED,
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("data/datasets_table"),
    shell:
        "{FXAI} datasets-table {params.names} --registry {params.registry}"
        " --prepared data/prepared --user-prepared {params.user_prepared} --raw-root data/raw"
        " --source-order {params.order}"
        " --unavailable {params.unavailable} --user {params.user} --out-dir {RESULTS}/tables > {log} 2>&1"


declare_targets("data", rules.datasets_table.output)
