#!/bin/sh
# make demo: profile the workload with perf and show the report.
echo 2 >/proc/sys/kernel/perf_event_paranoid
cd /tmp
if [ -d /sys/bus/event_source/devices/lwp ]; then
	ev=lwp/instructions/
	period=100003
	echo "DEMO: profiling with the LWP PMU (event $ev)"
else
	ev=cpu-clock
	period=100000
	echo "DEMO: this kernel/CPU has no 'lwp' PMU yet, so the demo uses the software event cpu-clock"
fi
echo "DEMO: the workload's func_a, func_b and func_c retire instructions 6:3:1"
echo "\$ perf record -e $ev -c $period -o /tmp/perf.data -- workload"
perf record -e "$ev" -c "$period" -o /tmp/perf.data -- workload >/tmp/record.out 2>&1
rc=$?
grep -v "Couldn't synthesize bpf events" /tmp/record.out
[ $rc -eq 0 ] || exit 1
echo "\$ perf report --stdio --sort comm,dso,sym"
perf report -i /tmp/perf.data --stdio --sort comm,dso,sym 2>&1 | grep -v '^$' | head -24
