#!/bin/sh
# make demo: profile the workload with perf and show the report.
echo 2 >/proc/sys/kernel/perf_event_paranoid
cd /tmp
if [ -d /sys/bus/event_source/devices/lwp ]; then
	ev=lwp/instructions/
	period=10007
	echo "DEMO: profiling with the LWP PMU: perf record -e $ev"
else
	ev=cpu-clock
	period=100000
	echo "DEMO: no 'lwp' PMU on this kernel/CPU yet, so this demo uses the software event cpu-clock"
fi
set -x
perf record -e "$ev" -c "$period" -o /tmp/perf.data -- workload || exit 1
perf report -i /tmp/perf.data --stdio --sort comm,dso,sym 2>&1 | grep -v '^$' | head -30
