#!/usr/bin/env bash
# A single-node SLURM test cluster on this machine, built from Debian's packages, as root.
# Used by tools/slurm-test.sh (and .ci/run); docs/cluster.md explains it.
#
#   bash tools/slurm-setup.sh install   # apt-get update + install slurm-wlm, munge (no recommends)
#   bash tools/slurm-setup.sh config    # writes /etc/slurm/slurm.conf (refuses to replace one
#                                       #   it did not write), state and log directories
#   bash tools/slurm-setup.sh start     # munged, slurmctld, slurmd in the background;
#                                       #   PIDs in $SLURM_STATE/{munged,slurmctld,slurmd}.pid
#   bash tools/slurm-setup.sh check     # sinfo, srun hostname, sbatch --wait
#   bash tools/slurm-setup.sh stop      # kills exactly the PIDs that `start` recorded
#   bash tools/slurm-setup.sh all       # install config start check
#
# Tested as root on Debian 12 (bookworm; slurm-wlm 22.05.8, munge 0.5.15), 2 cores, in a VM
# without systemd or usable cgroups (hence proctrack/linuxproc, task/none). There is no
# slurmdbd: `sacct` fails ("accounting storage is disabled"), so job status comes from
# `squeue`, which lists finished jobs for MinJobAge seconds (600 below).
#
# Settings (environment): SLURM_CPUS (default: nproc), SLURM_MEM_MB (default 20000),
# SLURM_STATE (default ${TMPDIR:-/tmp}/fxai-slurm: pid files, daemon output),
# SLURM_PARTITION (default main).
set -euo pipefail

CPUS=${SLURM_CPUS:-$(nproc)}
MEM_MB=${SLURM_MEM_MB:-20000}
STATE=${SLURM_STATE:-${TMPDIR:-/tmp}/fxai-slurm}
PARTITION=${SLURM_PARTITION:-main}
NODE=localhost            # NodeName; slurmd is started with -N localhost
CONF=/etc/slurm/slurm.conf
MARK="# single-node test cluster (written by fxai tools/slurm-setup.sh)"

install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
    && command -v munged >/dev/null && command -v sbatch >/dev/null; then
    echo "slurm-wlm and munge already installed"
  else
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      slurm-wlm munge
  fi
  # munge's postinst creates /etc/munge/munge.key (munge:munge, 0600); make one if not.
  test -s /etc/munge/munge.key || {
    mungekey --create --keyfile /etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key && chmod 600 /etc/munge/munge.key
  }
}

config() {
  if [ -e "$CONF" ] && ! head -1 "$CONF" | grep -qF "$MARK"; then
    echo "error: $CONF exists and was not written by this script; not replacing it" >&2
    exit 1
  fi
  mkdir -p "$STATE" /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm \
    /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  chmod 0755 /run/munge
  chown -R slurm:slurm /var/lib/slurm /var/log/slurm
  cat > "$CONF" <<EOF
$MARK
ClusterName=fxai
SlurmctldHost=localhost
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
SwitchType=switch/none
# no cgroups in this VM: track processes through /proc, no task containment
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=$STATE/slurmctld.daemon.pid
SlurmdPidFile=$STATE/slurmd.daemon.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no slurmdbd: sacct does not work; squeue shows finished jobs for MinJobAge seconds
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=10
JobCompType=jobcomp/none
MinJobAge=600
# a job past its time limit is killed KillWait seconds after SIGTERM
KillWait=10
# messages are local: 4 s is plenty, and a client (the executor plugin probes
# `scontrol show config` at every snakemake start) gives up in ~3 s instead of ~9 s
# while the daemons are stopped
MessageTimeout=4
OverTimeLimit=0
InactiveLimit=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  chmod 644 "$CONF"
}

# Start one daemon in its foreground mode (-D/-F), in the background; record its PID.
launch() {
  local name=$1; shift
  if [ -s "$STATE/$name.pid" ] && kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null; then
    echo "$name already running (pid $(cat "$STATE/$name.pid"))"; return
  fi
  nohup "$@" > "$STATE/$name.out" 2>&1 &
  echo $! > "$STATE/$name.pid"
  echo "$name started: pid $(cat "$STATE/$name.pid")"
}

start() {
  mkdir -p "$STATE"
  launch munged setpriv --reuid munge --regid munge --init-groups /usr/sbin/munged -F
  for _ in $(seq 20); do munge -n >/dev/null 2>&1 && break; sleep 0.5; done
  munge -n | unmunge >/dev/null && echo "munge ok"
  launch slurmctld /usr/sbin/slurmctld -D -i
  for _ in $(seq 30); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 1; done
  launch slurmd /usr/sbin/slurmd -D -N "$NODE"
  for _ in $(seq 30); do
    sinfo -h -N -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break; sleep 1
  done
  # a node that came up DOWN (e.g. after an earlier crash) is put back
  if sinfo -h -N -o '%t' | grep -qE '^(down|drain)'; then
    scontrol update nodename="$NODE" state=resume
  fi
  sinfo
}

check() {
  sinfo
  scontrol show node "$NODE" | grep -E 'CPUTot|RealMemory|State'
  timeout 60 srun -N1 -n1 hostname
  rm -f "$STATE"/check-*.out
  timeout 120 sbatch --wait -t 1 --mem 100 -o "$STATE/check-%j.out" \
    --wrap 'echo sbatch ok on $(hostname)'
  cat "$STATE"/check-*.out
}

stop() {
  # the PIDs that start() recorded, in reverse order; nothing else
  for name in slurmd slurmctld munged; do
    local f=$STATE/$name.pid
    [ -s "$f" ] || continue
    local pid; pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
      echo "$name (pid $pid) stopped"
    fi
    rm -f "$f"
  done
}

case "${1:-all}" in
  install) install ;;
  config) config ;;
  start) start ;;
  check) check ;;
  stop) stop ;;
  all) install; config; start; check ;;
  *) echo "usage: $0 install|config|start|check|stop|all" >&2; exit 2 ;;
esac
