#!/usr/bin/env bash
# Run (part of) a workflow N times from scratch with --cores 2 and count the failures: the
# parallel-safety check of issue 18. Each round gets a fresh scratch directory (nothing of an
# earlier round is reused: no data/, no results/, no .snakemake/) and the whole profile, or
# only the OBDD rules (train, explain and cross of every xpg.obdd_datasets set), is run.
#
#   bash tools/repeat-run.sh 20 obdd      # the OBDD part of the default profile, 20 times
#   bash tools/repeat-run.sh 3 all        # the whole default profile, 3 times
#   CONFIG=config/paper-quick.yaml bash tools/repeat-run.sh 2 all
#
# Prints one line per round (exit status, wall seconds, jobs done) and a summary; the log of
# a failed round is kept under $REPEAT_DIR (default ${TMPDIR:-/tmp}/fxai-repeat). Exit status:
# the number of failed rounds (0: every round finished).
set -uo pipefail

N=${1:?usage: repeat-run.sh N obdd|all}
PART=${2:?usage: repeat-run.sh N obdd|all}
REPO=$(cd "$(dirname "$0")/.." && pwd)
CONFIG=${CONFIG:-config/config.yaml}
CORES=${CORES:-2}
PY=${FXAI_PYTHON:-$REPO/.venv/bin/python}
SNAKEMAKE=$(dirname "$PY")/snakemake
OUT=${REPEAT_DIR:-${TMPDIR:-/tmp}/fxai-repeat}
case $PART in obdd|all) ;; *) echo "repeat-run: part must be obdd or all, not '$PART'" >&2; exit 2 ;; esac
[ -f "$REPO/$CONFIG" ] || { echo "repeat-run: no config $REPO/$CONFIG" >&2; exit 2; }
[ -x "$SNAKEMAKE" ] || { echo "repeat-run: no snakemake at $SNAKEMAKE (make venv)" >&2; exit 2; }

targets() {  # the OBDD part: every model, run and check file of the OBDD rules
  [ "$PART" = all ] && return
  "$PY" - "$REPO/$CONFIG" <<'EOF'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
res = f"results/{cfg['profile']}"
for ds in cfg["xpg"]["obdd_datasets"]:
    print(f"{res}/models/obdd/{ds}.bdd.json")
    for part in ("xpg", "cross"):
        print(f"{res}/runs/{part}/obdd_{ds}.jsonl")
EOF
}

mkdir -p "$OUT"
TARGETS=$(targets)
failed=0
for i in $(seq 1 "$N"); do
  wd=$(mktemp -d "$OUT/round-XXXX")
  ln -s "$REPO/config" "$wd/config"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # one target per word
  PYTHONPATH="$REPO/src" "$SNAKEMAKE" $TARGETS -s "$REPO/Snakefile" -d "$wd" --cores "$CORES" \
    --configfile "$REPO/$CONFIG" > "$wd/run.log" 2>&1
  rc=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  done_jobs=$(grep -o '[0-9]* of [0-9]* steps (100%) done' "$wd/run.log" | tail -1)
  printf 'round %d/%d: exit %d, %.0f s wall, %s\n' "$i" "$N" "$rc" "$secs" "${done_jobs:-not finished}"
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    echo "  log kept: $wd/run.log"
  else
    rm -rf "$wd"
  fi
done
echo "repeat-run: $PART part of $CONFIG, $N rounds from scratch with --cores $CORES: $failed failed"
exit "$failed"
