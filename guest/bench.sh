#!/bin/sh
# make bench: the measured guest workloads.  "bench.sh ROUNDS": the pipe
# ping-pong (the host's insncount plugin counts instructions between its
# markers); "bench.sh lwp:ROUNDS": the same under perf record -e
# lwp/instructions/; "bench.sh speed": the emulator's speed with LWP off and on.
cd /tmp
case "$1" in
speed) lwp-speed ;;
lwp:*)
	# both ping-pong processes profiled: LWP active, lwp PMU draining
	if [ -d /sys/bus/event_source/devices/lwp ]; then
		perf record -q -e lwp/instructions/ -c 100003 -o /tmp/pp.data -- pingpong "${1#lwp:}"
	else
		echo "bench: no lwp PMU on this CPU"
		pingpong "${1#lwp:}"
	fi
	;;
*) pingpong "${1:-20000}" ;;
esac
