#!/usr/bin/env bash
# Long test (not CI): runs a `strata lab` study as one Slurm array job on a
# one-node Slurm cluster started on localhost, then merges the parts with
# `strata lab collect` and prints the report's verdicts.
#
# Usage: scripts/slurm-study.sh [STRATA [STUDY [SCALE]]] [-- PLAN_ARGS...]
#   STRATA     a `strata` binary (default: $STRATA, else target/release/strata)
#   STUDY      a study file or a name under studies/ (default: bloom)
#   SCALE      the study's scale (default: quick)
#   PLAN_ARGS  more `strata lab plan` options (default: --engines strata)
# Environment:
#   LAB        output root (default /tmp/slurm-lab): jobs.txt, parts/task-I/
#              (one result directory per array task), logs/task-I.out|.rc,
#              merged/ (the collected report)
#   PARALLEL   array tasks running at once (default 1: one job at a time, so
#              the numbers are not disturbed by a neighbour)
#   KEEP       1 keeps the Slurm/munge temp dir (config, state, daemon logs)
#   PORT       slurmctld's port (default 16817; slurmd listens on PORT+1)
#
# What it does, in order:
#   1. installs slurm-wlm and munge with apt-get when `slurmctld`, `slurmd`,
#      `sbatch` or `munged` is missing (needs root);
#   2. writes a munge key and a minimal slurm.conf into a temp dir (one node,
#      `localhost`, with the machine's CPUs and half its memory; no accounting,
#      no cgroups) and starts munged, slurmctld and slurmd on private ports;
#   3. writes the plan (`strata lab plan`, one shell command per job) and
#      submits it as ONE array job, `sbatch --array=0-(N-1) --wait`: task I
#      runs line I+1 of the plan with its `--out` pointed at parts/task-I;
#   4. checks every task: with `sacct` when accounting is configured, else with
#      `scontrol show job` (state and exit code of each task) and the task's
#      own exit-status file;
#   5. runs `strata lab collect parts/task-* --out merged` and prints the
#      report's verdict section;
#   6. stops the daemons it started (also on failure or Ctrl-C).
# Exit status: 0 when the cluster comes up, every task completes with exit code
# 0 and `collect` writes a report; 1 otherwise. The daemons and the tasks run at
# the script's own niceness (`nice -n 19 scripts/slurm-study.sh` keeps a busy
# machine responsive, at the price of noisier numbers).
set -euo pipefail

die() { echo "slurm-study: FAIL: $*" >&2; exit 1; }
say() { echo "slurm-study: $*"; }

repo=$(cd "$(dirname "$0")/.." && pwd)
plan_args=()
pos=()
while (($#)); do
  case $1 in
    --) shift; plan_args=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) pos+=("$1"); shift ;;
  esac
done
((${#pos[@]} <= 3)) || die "too many arguments (see --help)"
STRATA=${pos[0]:-${STRATA:-$repo/target/release/strata}}
STUDY=${pos[1]:-bloom}
SCALE=${pos[2]:-quick}
((${#plan_args[@]})) || plan_args=(--engines strata)
LAB=${LAB:-/tmp/slurm-lab}
PARALLEL=${PARALLEL:-1}
KEEP=${KEEP:-0}
PORT=${PORT:-16817}

[[ -x $STRATA ]] || die "no strata binary at $STRATA (pass one, or set STRATA)"
STRATA=$(cd "$(dirname "$STRATA")" && pwd)/$(basename "$STRATA")
# A study name resolves to this checkout's studies/NAME.toml when it exists.
if [[ ! -f $STUDY && -f $repo/studies/$STUDY.toml ]]; then
  STUDY=$repo/studies/$STUDY.toml
fi
start=$(date +%s)

# --- 1. packages -------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  [[ $(id -u) == 0 ]] || die "slurm-wlm/munge missing and not root: install them first"
  say "installing slurm-wlm and munge (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || die "apt-get update failed"
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
    die "apt-get install slurm-wlm munge failed"
fi
[[ $(id -u) == 0 ]] || die "slurmd must run as root here (task launch as the submitting user)"

# --- 2. munge + slurm on localhost ------------------------------------------
T=$(mktemp -d /tmp/slurm-study.XXXXXX)
chmod 700 "$T"
pids=()
cleanup() {
  local rc=$? p
  trap - EXIT INT TERM
  if [[ -f $T/slurm.conf ]] && [[ -f $T/slurmctld.pid || -f $T/slurmd.pid ]]; then
    SLURM_CONF=$T/slurm.conf scancel --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$p" 2>/dev/null || true
  done
  ((${#pids[@]})) && say "stopped munged, slurmctld and slurmd"
  if ((rc != 0)); then
    for f in "$T"/slurmctld.log "$T"/slurmd.log "$T"/munged.log; do
      [[ -s $f ]] && { echo "--- last lines of $f"; tail -n 15 "$f"; }
    done
  fi
  if [[ $KEEP == 1 || $rc != 0 ]]; then
    say "kept Slurm/munge config, state and logs in $T"
  else
    rm -rf "$T"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Wait until the daemon wrote its pid file, and remember the pid to stop it.
started() {  # NAME PIDFILE
  local i
  for i in $(seq 50); do
    if [[ -s $2 ]] && kill -0 "$(cat "$2")" 2>/dev/null; then
      pids+=("$(cat "$2")"); return 0
    fi
    sleep 0.2
  done
  die "$1 did not start (log in $T)"
}

mkdir -p "$T/munge" "$T/ctld" "$T/spool"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
sock=$T/munge/munge.socket
munged --force --key-file="$T/munge/munge.key" --socket="$sock" \
  --pid-file="$T/munged.pid" --log-file="$T/munged.log" \
  --seed-file="$T/munge/munged.seed" || die "munged failed to start (see $T/munged.log)"
started munged "$T/munged.pid"
munge -S "$sock" -n | unmunge -S "$sock" >/dev/null || die "munge credential round trip failed"
say "munged up (socket $sock)"

cpus=$(nproc)
mem_mb=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 / 2 }' /proc/meminfo)
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
# One-node cluster for scripts/slurm-study.sh (generated).
ClusterName=stratalab
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$T/ctld
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# Keep finished jobs in slurmctld for an hour: without accounting,
# scontrol show job is how the script reads every task's state.
MinJobAge=3600
MaxArraySize=100001
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=lab Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF" || die "slurmctld failed to start (see $T/slurmctld.log)"
started slurmctld "$T/slurmctld.pid"
slurmd -f "$SLURM_CONF" -N localhost || die "slurmd failed to start (see $T/slurmd.log)"
started slurmd "$T/slurmd.pid"
state=
for _ in $(seq 60); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 1
done
[[ $state == idle ]] || die "node localhost is '${state:-unknown}', not idle"
say "cluster up ($cpus CPUs, RealMemory=$mem_mb MB):"
sinfo | sed 's/^/  /'

# --- 3. plan and array job ---------------------------------------------------
rm -rf "$LAB/parts" "$LAB/logs" "$LAB/merged"
mkdir -p "$LAB/parts" "$LAB/logs"
# The plan's lines share one --out; a placeholder in it becomes each task's
# own directory.
placeholder=task-SLURMTASKID
"$STRATA" lab plan "$STUDY" --scale "$SCALE" --out "$LAB/parts/$placeholder" \
  "${plan_args[@]}" >"$LAB/jobs.txt" || die "strata lab plan failed"
n=$(grep -c . "$LAB/jobs.txt" || true)
((n > 0)) || die "the plan has no jobs"
say "plan: $n jobs in $LAB/jobs.txt ($(basename "$STUDY" .toml), scale $SCALE, ${plan_args[*]})"

cat >"$LAB/task.sh" <<'EOF'
#!/usr/bin/env bash
# One array task: run plan line SLURM_ARRAY_TASK_ID+1 into parts/task-ID.
set -uo pipefail
id=${SLURM_ARRAY_TASK_ID:?not an array task}
line=$(sed -n "$((id + 1))p" "$LAB/jobs.txt")
case " $line " in
  *" --index $id "*) ;;
  *) echo "line $((id + 1)) of the plan is not job $id: $line" >&2
     echo 2 >"$LAB/logs/task-$id.rc"; exit 2 ;;
esac
line=${line//task-SLURMTASKID/task-$id}
echo "task $id on $(hostname): $line"
eval "$line"
rc=$?
echo "$rc" >"$LAB/logs/task-$id.rc"
exit "$rc"
EOF
chmod +x "$LAB/task.sh"

sub_start=$(date +%s)
set +e
export LAB
out=$(sbatch --parsable --wait --array="0-$((n - 1))%$PARALLEL" \
  --job-name=strata-lab --ntasks=1 --cpus-per-task=1 --chdir="$LAB" \
  --output="$LAB/logs/task-%a.out" --export=ALL "$LAB/task.sh")
sb=$?
set -e
job=${out%%;*}
[[ $job =~ ^[0-9]+$ ]] || die "sbatch did not return a job id (output: $out)"
say "array job $job: $n tasks done in $(($(date +%s) - sub_start)) s (sbatch --wait exit $sb)"

# --- 4. every task's exit state ----------------------------------------------
bad=0
if sacct -n -X -j "$job" -o JobID,State,ExitCode >"$LAB/logs/states.txt" 2>/dev/null &&
   [[ -s $LAB/logs/states.txt ]]; then
  src=sacct
else
  src="scontrol show job"
  scontrol -o show job "$job" | awk '{
      id = ""; st = ""; ec = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^ArrayJobId=/)  { split($i, a, "="); aj = a[2] }
        if ($i ~ /^ArrayTaskId=/) { split($i, a, "="); id = a[2] }
        if ($i ~ /^JobState=/)    { split($i, a, "="); st = a[2] }
        if ($i ~ /^ExitCode=/)    { split($i, a, "="); ec = a[2] }
      }
      print aj "_" id, st, ec }' >"$LAB/logs/states.txt"
fi
for ((i = 0; i < n; i++)); do
  line=$(awk -v t="${job}_$i" '$1 == t' "$LAB/logs/states.txt")
  read -r _ st ec <<<"${line:-x MISSING -}"
  rc=$(cat "$LAB/logs/task-$i.rc" 2>/dev/null || echo none)
  if [[ $st != COMPLETED || $ec != 0:0 || $rc != 0 ]]; then
    echo "  task $i: state $st, exit $ec, lab exit $rc (log $LAB/logs/task-$i.out)" >&2
    bad=$((bad + 1))
  fi
done
states=$(awk '{ print $2 " " $3 }' "$LAB/logs/states.txt" | sort | uniq -c |
  awk '{ printf "%s%d %s (exit %s)", sep, $1, $2, $3; sep = ", " }')
say "task states ($src): $states"
sort -t_ -k2,2n "$LAB/logs/states.txt" | awk '{ printf "%s%s %s", (NR % 4 == 1 ? "  " : "   "), $1, $2; if (NR % 4 == 0) print "" } END { if (NR % 4) print "" }'
((bad == 0)) || die "$bad of $n tasks did not complete with exit code 0"
((sb == 0)) || die "sbatch --wait exited $sb"

# --- 5. collect --------------------------------------------------------------
parts=()
for ((i = 0; i < n; i++)); do parts+=("$LAB/parts/task-$i"); done
"$STRATA" lab collect "${parts[@]}" --out "$LAB/merged" >"$LAB/logs/collect.txt" 2>&1 ||
  { cat "$LAB/logs/collect.txt" >&2; die "strata lab collect failed"; }
say "collect:"
sed 's/^/  /' "$LAB/logs/collect.txt"
report=$(find "$LAB/merged" -name report.md | head -n 1)
[[ -n $report ]] || die "collect wrote no report.md under $LAB/merged"
verdicts=$(awk '/^## Verdicts/ { p = 1 } p && /^## / && !/^## Verdicts/ { exit } p' "$report")
[[ -n $verdicts ]] || die "no verdict section in $report"
echo
echo "$verdicts"
echo
find "$LAB/parts" -type d -name db -prune -exec rm -rf {} + 2>/dev/null || true
say "PASS: $n array tasks, report $report ($(($(date +%s) - start)) s in all)"
