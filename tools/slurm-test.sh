#!/usr/bin/env bash
# End-to-end test of profiles/slurm on a single-node SLURM cluster built here from Debian's
# packages (tools/slurm-setup.sh), as root. In a scratch copy of this checkout:
#   1. local run:  snakemake --profile profiles/local --configfile CONFIG  (profile local-test),
#      under the fork server as make run runs it
#   2. SLURM run:  snakemake --profile profiles/slurm --configfile CONFIG  (profile slurm-test),
#      from freshly deleted data/prepared; one running group job is cancelled (scancel), so
#      this run must fail; then the same command again must finish the workflow;
#   3. every table of the two runs must be equal apart from time columns
#      (python -m fxai.cluster compare-tables), and both reports must exist.
# Prints the wall times and the numbers of SLURM jobs. Stops the daemons it started (trap).
#
#   bash tools/slurm-test.sh [CONFIG]      # default config/cluster-test.yaml (about a minute)
#   SLURM_TEST_CANCEL=0 bash tools/slurm-test.sh config/config.yaml   # timing, no cancel
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no apt-get, packages not installable).
# Needs the venv with the slurm extra: make venv (FXAI_PYTHON: other python).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CONFIG=${1:-config/cluster-test.yaml}
CANCEL=${SLURM_TEST_CANCEL:-1}
export SLURM_STATE=${SLURM_STATE:-${TMPDIR:-/tmp}/fxai-slurm}
STATE=$SLURM_STATE
WORK=$STATE/work
PY=${FXAI_PYTHON:-$REPO/.venv/bin/python}
SETUP="bash $REPO/tools/slurm-setup.sh"

skip() { echo "SKIPPED: SLURM test: $*"; exit 77; }
fail() { echo "FAILED: SLURM test: $*" >&2; exit 1; }
log() { echo "[slurm-test $(date -u +%H:%M:%S)] $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (builds a cluster with apt-get and starts its daemons)"
command -v apt-get >/dev/null || skip "needs apt-get (Debian or Ubuntu)"
[ -x "$PY" ] || fail "no python at $PY: run make venv"
"$PY" -c "import snakemake_executor_plugin_slurm" 2>/dev/null \
  || fail "the executor plugin is missing: run make venv"
[ -f "$REPO/$CONFIG" ] || fail "no config $CONFIG"

mkdir -p "$STATE"
$SETUP install > "$STATE/install.log" 2>&1 \
  || skip "apt-get install slurm-wlm munge failed (no package access?): $STATE/install.log"
$SETUP config
run_pid=""
cleanup() {
  local ids
  if [ -n "$run_pid" ] && kill -0 "$run_pid" 2>/dev/null; then
    kill -INT "$run_pid"; wait "$run_pid" || true
  fi
  ids=$(squeue -h -o %i 2>/dev/null || true)
  [ -z "$ids" ] || scancel $ids 2>/dev/null || true
  $SETUP stop || true
}
trap cleanup EXIT
$SETUP start
timeout 180 $SETUP check > "$STATE/check.log" 2>&1 || fail "cluster check: $STATE/check.log"
log "cluster up: $(sinfo -h -o '%P %D %c CPUs %m MB' | head -1)"

# a scratch copy of the checkout (tracked and untracked, not ignored: no results, no data)
rm -rf "$WORK" && mkdir -p "$WORK"
git -C "$REPO" ls-files -z -co --exclude-standard \
  | (cd "$REPO" && tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$WORK"
# and the checkout's compiled code (bytecode, numba's cache; both keyed by the source file's
# time and size, which tar keeps), as a run from the checkout itself would find it
(cd "$REPO" && find src -type d -name __pycache__ -print0 \
  | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$WORK"
cd "$WORK"
export PYTHONPATH=$WORK/src MPLBACKEND=Agg  # jobs inherit the environment (sbatch --export)
# what is not compiled yet: the first job compiles each module, the rest read it (as the
# Makefile does; with PYTHONDONTWRITEBYTECODE set every job compiled every module it imported)
unset PYTHONDONTWRITEBYTECODE
SMK=("$PY" -m snakemake --configfile "$CONFIG")
elapsed() { echo $(( $(date +%s) - $1 )); }

log "local run ($CONFIG)"
t0=$(date +%s)
"$PY" -m fxai.forkserver -- "${SMK[@]}" --profile profiles/local --config profile=local-test \
  > "$STATE/local.log" 2>&1 \
  || fail "local run: $STATE/local.log"
t_local=$(elapsed "$t0")
rm -rf data/prepared  # the SLURM run prepares the data again

submitted() { grep -c "submitted with SLURM jobid" "$1" || true; }
slurm_run() {  # slurm_run LOG: the SLURM profile run
  "${SMK[@]}" --profile profiles/slurm --config profile=slurm-test > "$1" 2>&1
}

log "SLURM run"
t0=$(date +%s)
if [ "$CANCEL" = 1 ]; then
  "${SMK[@]}" --profile profiles/slurm --config profile=slurm-test > "$STATE/slurm1.log" 2>&1 &
  run_pid=$!  # snakemake itself (a simple command in the background is exec'd)
  victim=""
  for _ in $(seq 600); do  # cancel a group job of explaining rules 10 s after it started
    victim=$(squeue -h -t R -o '%i %k %M' | awk '$2 ~ /^rule_(ffa|explain)/ && $3 >= "0:10" {print $1; exit}')
    [ -n "$victim" ] && break
    kill -0 $run_pid 2>/dev/null || break
    sleep 1
  done
  [ -n "$victim" ] || { wait $run_pid || true; fail "no running job to cancel: $STATE/slurm1.log"; }
  log "scancel $victim ($(squeue -h -j "$victim" -o '%k'))"
  scancel "$victim"
  wait $run_pid && fail "the run went on as if job $victim had not been cancelled"
  t_first=$(elapsed "$t0")
  grep -q "$victim" "$STATE/slurm1.log" || fail "the log does not name job $victim"
  log "first run failed as it should ($t_first s, $(submitted "$STATE/slurm1.log") jobs); rerun"
  t1=$(date +%s)
  slurm_run "$STATE/slurm2.log" || fail "rerun after the cancel: $STATE/slurm2.log"
  t_rerun=$(elapsed "$t1")
  n1=$(submitted "$STATE/slurm1.log"); n2=$(submitted "$STATE/slurm2.log")
  log "rerun: $t_rerun s, $n2 jobs"
  [ "$n2" -ge 1 ] && [ "$n2" -lt "$n1" ] || fail "the rerun submitted $n2 jobs (first run: $n1)"
else
  slurm_run "$STATE/slurm1.log" || fail "SLURM run: $STATE/slurm1.log"
fi
t_slurm=$(elapsed "$t0")

log "compare tables"
"$PY" -m fxai.cluster compare-tables results/local-test/tables results/slurm-test/tables \
  || fail "the SLURM run's tables differ from the local run's"
for p in local-test slurm-test; do
  [ -s "results/$p/report.html" ] || fail "no results/$p/report.html"
done
jobs_total=$(( $(submitted "$STATE/slurm1.log") + $( [ -f "$STATE/slurm2.log" ] && submitted "$STATE/slurm2.log" || echo 0) ))
log "PASSED: $CONFIG: local ${t_local} s; SLURM ${t_slurm} s in total, $jobs_total SLURM jobs" \
  "(cancel=$CANCEL); load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $STATE"
