#!/usr/bin/env bash
# A one-node SLURM on this machine, for testing the slurm profile for real (tests/test_slurm.py; CI runs it).
#
#   workflows/profiles/slurm/local-cluster.sh start [DIR]   install (Debian: slurm-wlm, munge) if missing, write
#                                                           DIR/slurm.conf for this host, start munged, slurmctld
#                                                           and slurmd; prints `export SLURM_CONF=DIR/slurm.conf`
#   workflows/profiles/slurm/local-cluster.sh stop [DIR]    stop the daemons started from DIR
#
# DIR defaults to /tmp/qlsbench-slurm. Needs root (the daemons, and apt-get when SLURM is not installed).
# Accounting goes to a text file (JobCompType=jobcomp/filetxt): `sacct --completion` reads it; there is no
# slurmdbd. One node, every core of this machine, one partition `debug`, no cgroups (proctrack/linuxproc).
set -euo pipefail
action=${1:-}
dir=${2:-/tmp/qlsbench-slurm}
conf=$dir/slurm.conf

stop() {
    for daemon in slurmd slurmctld munged; do
        if [ -f "$dir/$daemon.pid" ]; then
            kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
            rm -f "$dir/$daemon.pid"
        fi
    done
    # slurmstepd and daemons started without a pid file (a failed start) go too.
    pkill -f "slurmd -f $conf" 2>/dev/null || true
    pkill -f "slurmctld -f $conf" 2>/dev/null || true
    if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$conf" ]; then
        rm -f /etc/slurm/slurm.conf
    fi
}

case "$action" in
start)
    [ "$(id -u)" = 0 ] || { echo "local-cluster.sh: needs root (SLURM's daemons)" >&2; exit 2; }
    if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
    fi
    stop
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
    host=$(hostname -s)
    cpus=$(nproc)
    memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    cat >"$conf" <<EOF
ClusterName=qlsbench
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    # munge wants its key and folders owned by the user it runs as; here root, in our own folder.
    [ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
    chmod 700 "$dir/munge"; chmod 400 "$dir/munge/munge.key"
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed"
    export MUNGE_SOCKET="$dir/munge/munge.socket"
    # slurmctld and slurmd talk to munge through libmunge's default socket path unless told otherwise.
    mkdir -p /run/munge
    ln -sf "$dir/munge/munge.socket" /run/munge/munge.socket.2
    # Job steps (srun inside a batch job) look for the configuration where SLURM keeps it, not in SLURM_CONF:
    # point the default place at ours, unless a real configuration lives there.
    mkdir -p /etc/slurm
    if [ ! -e /etc/slurm/slurm.conf ] || [ -L /etc/slurm/slurm.conf ]; then
        ln -sfn "$conf" /etc/slurm/slurm.conf
    fi
    slurmctld -f "$conf"
    slurmd -f "$conf"
    export SLURM_CONF=$conf
    for _ in $(seq 1 60); do
        if sinfo -h -o %t 2>/dev/null | grep -qE "^(idle|mix|alloc)"; then
            echo "export SLURM_CONF=$conf"
            exit 0
        fi
        scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
        sleep 1
    done
    echo "local-cluster.sh: the node did not come up; see $dir/log" >&2
    exit 1
    ;;
stop)
    stop
    ;;
*)
    echo "usage: $0 start|stop [DIR]" >&2
    exit 2
    ;;
esac
