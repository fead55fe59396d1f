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
[ -e /sys/bus/event_source/devices/lwp/events/lwpins ] || exit 0
echo
echo "DEMO: a program marks its phases with LWPINS (GCC's __lwpins64) and feeds values"
echo "DEMO: with LWPVAL; perf samples them beside its instructions, in the order LWP took them"
echo "\$ perf record -d -c 10007 -e lwp/instructions/,lwp/lwpins/ -o /tmp/markers.data -- markers 100000 2"
perf record -d -c 10007 -e lwp/instructions/,lwp/lwpins/ -o /tmp/markers.data -- markers 100000 2 >/tmp/record.out 2>&1 || {
	cat /tmp/record.out
	exit 1
}
echo "\$ perf script -F tid,event,addr,ip,sym   (addr: the marker's Data2, tid << 32 | phase)"
perf script -i /tmp/markers.data -F tid,event,addr,ip,sym 2>/dev/null | awk '
	# a run of one thread'"'"'s instruction samples in one function: one line
	function flush() { if (n) printf "%7s   %d lwp/instructions/ samples in %s\n", tid, n, sym; n = 0 }
	$2 == "lwp/lwpins/:" { flush(); print; next }
	$2 == "lwp/instructions/:" { if (n && ($1 != tid || $NF != sym)) flush(); tid = $1; sym = $NF; n++ }
	END { flush() }' | head -40
echo "\$ perf record -d -c 100 -e lwp/lwpval/ -- markers 100000 1 1000; perf script -F tid,event,addr,ip,sym | head -5   (addr: 64 x the item number)"
perf record -d -c 100 -e lwp/lwpval/ -o /tmp/values.data -- markers 100000 1 1000 >/tmp/record.out 2>&1 &&
	perf script -i /tmp/values.data -F tid,event,addr,ip,sym 2>/dev/null | head -5
