#!/bin/sh
# make fuzz, in the guest: "fuzz.sh SEED SECONDS" runs trinity for SECONDS
# as an unprivileged user (nobody) with perf_event_paranoid 2, limited to
# the system calls an lwp event's life goes through.  Trinity runs under
# "perf record -e lwp/instructions/u" by the same user, so that every
# process it forks inherits an lwp event and has an [lwp] area for its
# random mmap, munmap, mremap, mprotect, madvise, prctl and execve calls to
# hit; its own random perf_event_open calls ask for the lwp PMU now and
# then (a sysfs PMU in one call of eight).  It prints what was done:
#   FUZZ: seed=S seconds=T syscalls=N perf_event_open=P lwp_calls=L
#         lwp_opened=O profiled_forks=F samples=S
# (P, L, O: trinity's 64-bit calls, counted by guest/lwp-fuzzcount.c;
# F and S from perf report --stats).  The judge of the run is the host's
# (scripts/run-qemu.py): any kernel report fails it; the debug checkers'
# lines follow from /init.
seed=${1:?seed}
secs=${2:?seconds}
dir=/tmp/fuzz
count=$dir/counts

echo 2 >/proc/sys/kernel/perf_event_paranoid
mkdir -p "$dir"
head -c 4096 /dev/zero >"$count"
chown -R 65534:65534 "$dir"
type=$(cat /sys/bus/event_source/devices/lwp/type 2>/dev/null)
echo "FUZZ: lwp PMU type ${type:-none}, perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
[ -n "$type" ] || { echo "FUZZ: no lwp PMU on this kernel/CPU"; exit 1; }

# trinity refuses fork, vfork, clone, clone3 and arch_prctl ("AVOID": they
# would take its children away from it); it forks and replaces its
# children all the time itself, so inherited events see fork and exit.
calls="perf_event_open ioctl mmap munmap mremap mprotect madvise execve prctl"
args=""
for c in $calls; do
	args="$args -c $c"
done
cd "$dir" || exit 1
echo "FUZZ: trinity starts at uptime $(cut -d' ' -f1 /proc/uptime)"
# SIGINT at the end: trinity stops its children and prints its totals,
# then perf record ends with it
# shellcheck disable=SC2086 # args is a list of words
HOME=$dir runas 65534 perf record -q -e lwp/instructions/u -o "$dir/perf.data" -- \
	env FUZZCOUNT="$count" LD_PRELOAD=/harness/bin/lwp-fuzzcount \
	timeout -s INT -k 60 "$secs" \
	trinity -q -l off --stats -s "$seed" -C 4 --disable-fds=sockets $args \
	>"$dir/out" 2>"$dir/perf.err"
rc=$?
echo "FUZZ: trinity ends at uptime $(cut -d' ' -f1 /proc/uptime)"
grep -v '^\s*$' "$dir/out" | tail -40
cat "$dir/perf.err"
n=$(sed -n 's/.*Ran \([0-9][0-9]*\) syscalls.*/\1/p' "$dir/out" | tail -1)
[ -n "$n" ] || { echo "FUZZ: trinity printed no syscall count (perf record exit $rc)"; exit 1; }
HOME=$dir runas 65534 perf report -i "$dir/perf.data" --stats >"$dir/stats" 2>&1
forks=$(awk '$1 == "FORK" && $2 == "events:" { print $3 }' "$dir/stats")
samples=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3 }' "$dir/stats")
set -- $(od -An -tu8 -N24 "$count")
echo "FUZZ: seed=$seed seconds=$secs syscalls=$n perf_event_open=$1 lwp_calls=$2 lwp_opened=$3 profiled_forks=${forks:-0} samples=${samples:-0}"
# perf record's own exit: 0, or the workload's status (timeout's 124)
[ $rc -eq 0 ] || [ $rc -eq 124 ] || { echo "FUZZ: perf record exited with $rc"; exit 1; }
[ "${forks:-0}" -gt 0 ] || { echo "FUZZ: no profiled fork in perf.data"; cat "$dir/stats"; exit 1; }
