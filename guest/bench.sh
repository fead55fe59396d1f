#!/bin/sh
# make bench: the measured guest workloads.  "bench.sh ROUNDS": the pipe
# ping-pong (the host's insncount plugin counts instructions between its
# markers); "bench.sh lwp:ROUNDS": the same under perf record -e
# lwp/instructions/, "lwpa:ROUNDS" under perf record -a, "sw:ROUNDS" and
# "swa:ROUNDS" under a task-clock event, per task and CPU-wide; "bench.sh speed":
# the emulator's speed with LWP off and on; "once:off|on:N": the tight
# loop once (make bench counts the emulator's host instructions).
cd /tmp
case "$1" in
speed) lwp-speed ;;
once:*)
	# once:off|on:N - the tight loop once, N iterations, LWP off or on
	n=${1##*:}
	mode=${1#once:}
	lwp-speed once "${mode%%:*}" "$n"
	;;
samples:*)
	# samples:EVENT:PERIOD:N[:a|:c] - the compute loop, sampled with
	# EVENT ("none": not sampled) every PERIOD events, or FREQ times a
	# second for a PERIOD of FFREQ, by a per-task event, with "a" by a
	# CPU-wide one (perf record -a), with "c" by a per-task one whose
	# samples hold the CPU as -a's do (--sample-cpu); prints how many
	# samples perf got
	set -- $(echo "$1" | tr : ' ')
	scope=
	[ "$5" = a ] && scope=-a
	[ "$5" = c ] && scope=--sample-cpu
	if [ "$2" = none ]; then
		pingpong loop "$4"
	else
		case "$3" in
		F*) rate="-F ${3#F}" ;;
		*) rate="-c $3" ;;
		esac
		# a perf ring large enough that perf does not wake up and write
		# during the loop: the count is the kernel's cost of sampling
		# shellcheck disable=SC2086 # rate is two words, scope one or none
		perf record -q -m 1024 $scope -e "$2" $rate -o /tmp/s.data -- pingpong loop "$4"
		echo "bench: samples=$(perf script -i /tmp/s.data -F ip 2>/dev/null | wc -l)"
	fi
	;;
lwp:* | lwpa:*)
	# both ping-pong processes profiled: LWP active, lwp PMU draining;
	# lwpa: by a CPU-wide event (perf record -a)
	scope=
	case "$1" in lwpa:*) scope=-a ;; esac
	if [ -d /sys/bus/event_source/devices/lwp ]; then
		# shellcheck disable=SC2086 # scope is one word or none
		perf record -q $scope -e lwp/instructions/ -c 100003 -o /tmp/pp.data -- pingpong "${1#*:}"
	else
		echo "bench: no lwp PMU on this CPU"
		pingpong "${1#*:}"
	fi
	;;
sw:* | swa:*)
	# the same under a software event (task-clock) per task or CPU-wide:
	# perf core's own cost of profiling a switch, for reference
	scope=
	case "$1" in swa:*) scope=-a ;; esac
	# shellcheck disable=SC2086 # scope is one word or none
	perf record -q $scope -e task-clock -c 100000000 -o /tmp/pp.data -- pingpong "${1#*:}"
	;;
*) pingpong "${1:-20000}" ;;
esac
