#!/usr/bin/env bash
# make bench: deterministic instruction counts of guest code paths, with the
# insncount TCG plugin (tools/insncount.c), one vCPU, single-threaded TCG.
#   bench.sh plain|debug CPU [ROUNDS]
# Figures (build/bench/results.txt):
#   - kernel instructions per context switch (pipe ping-pong between two
#     processes on one CPU, counted between the workload's two markers);
#   - instructions per switch in the context-switch path's own functions;
#   - the emulator's speed running the same loops with LWP off and with LWP
#     counting (wall clock, interleaved, medians: guest/lwp-speed.c).
. "$(dirname "$0")/lib.sh"

kout=$(kernel_out "${1:?kernel variant (plain or debug)}")
cpu=${2:?cpu model}
rounds=${3:-20000}
out=$BUILD/bench
mkdir -p "$out"
plugin=$out/libinsncount.so
map=$kout/System.map
[ -f "$map" ] || die "no $map: build the kernel first"

# bench_boot RUN_QEMU_ARGS...: one boot of the bench kernel, one vCPU,
# single-threaded TCG, guest/bench.sh as the workload
bench_boot() {
	run_guest "$kout" "$cpu" --quiet --smp 1 --accel tcg,thread=single --mode bench \
		--timeout 1200 "$@"
}

# sym_range NAME_REGEX: "start end" of the first text symbol matching it
# (end = the next symbol's address)
sym_range() {
	awk -v re="^$1\$" '
		found { if ($1 != start) { print start, $1; exit } next }
		$2 ~ /^[tT]$/ && $3 ~ re { start = $1; found = 1 }' "$map"
}

build_plugin() {
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
		-I"$BUILD/qemu/include/qemu" $(pkg-config --cflags glib-2.0) \
		-o "$plugin" "$TOP/tools/insncount.c"
}
step "build the insncount plugin" build_plugin

# the context-switch path: __schedule's own body, the arch switch (FPU and
# LWP state are switched in __switch_to), the mm switch, and the tail; with
# LWP active also the LWP switch (lwp_switch, its XSAVE/XRSTOR helpers) and
# the lwp PMU's context-switch work (perf's task sched hooks, the driver's
# sched_task callback and drain)
args=""
for s in '__schedule' 'context_switch' '__switch_to_asm' '__switch_to' \
	 'switch_mm_irqs_off' 'finish_task_switch(\.[a-z]+\.[0-9]+)?' \
	 '__switch_to_xtra' 'lwp_switch' 'xsave_lwp' 'xrstor_lwp' \
	 '__perf_event_task_sched_out' '__perf_event_task_sched_in' \
	 'perf_lwp_sched_task' 'perf_lwp_drain' 'perf_lwp_apply'; do
	r=$(sym_range "$s") || true
	[ -n "$r" ] || { echo "($s: not a function in this build)"; continue; }
	name=$(echo "$s" | sed 's/(.*//')
	args="$args,range=$name:${r% *}:${r#* }"
done
marker=$(nm "$BUILD/initramfs.root/harness/bin/pingpong" | awk '$3 == "bench_marker" { print $1 }')
[ -n "$marker" ] || die "pingpong has no bench_marker symbol"

# The counting boots run under -icount: one guest instruction a
# nanosecond, no sleeping ahead when idle.  The guest's clock then follows
# the instructions it runs rather than the host's speed, and a run has the
# same timer ticks however fast the emulator ran it.
icount="--qemu-arg=-icount --qemu-arg=shift=0,sleep=off"

# pingpong LABEL BENCH_ARG: one boot with the plugin, the figures per switch
pingpong() {
	local label=$1 arg=$2 log=$out/serial-$1.log counts=$out/counts-$1.txt

	# shellcheck disable=SC2086 # icount is two words
	step "boot $cpu with the plugin, $rounds ping-pong rounds ($label)" \
		bench_boot --append "harness.bench=$arg" --log "$log" $icount \
		--qemu-arg=-plugin --qemu-arg="$plugin,marker=$marker,out=$counts,profile=$out/profile-$label.txt$args"

	switches=$(sed -n 's/.*pingpong: rounds=[0-9]* switches=\([0-9]*\).*/\1/p' "$log" | tail -1)
	[ -n "$switches" ] && [ "$switches" -gt 0 ] || die "the guest did not report its context switches (log: $log)"
	grep -q '^markers 2$' "$counts" || die "the plugin did not see both markers ($counts)"
	{
		echo "# pipe ping-pong ($label), $rounds rounds, $switches context switches (getrusage), 1 vCPU"
		echo "# instructions counted between the workload's markers, per context switch"
		echo "# (sum: the listed functions, without the kernel and user totals)"
		awk -v sw="$switches" '$1 == "range" { printf "%-28s %12d total  %10.1f per switch\n", $2, $3, $3 / sw }
			$1 == "range" && $2 != "kernel" && $2 != "user" { t += $3 }
			END { printf "%-28s %12d total  %10.1f per switch\n", "sum", t, t / sw }' "$counts"
	} | tee -a "$out/results.txt"
	attribution="$attribution $label:$switches:$out/profile-$label.txt"
}
attribution=

echo "# make bench: $(date -u +%F) kernel $(cat "$kout/include/config/kernel.release" 2>/dev/null) cpu $cpu" |
	tee "$out/results.txt"
pingpong plain "$rounds"
# (b) both processes profiled by the lwp PMU, LWP active in both
if grep -q ' amd_lwp_pmu_init$' "$map"; then
	pingpong lwp "lwp:$rounds"
	# (c) the same, profiled by a CPU-wide event (perf record -a)
	pingpong lwp-a "lwpa:$rounds"
fi
# (d) perf core's own part, for reference: a software event (task-clock,
# one sample in 100 ms) per task and CPU-wide, no sched_task callback
pingpong sw "sw:$rounds"
pingpong sw-a "swa:$rounds"
# every kernel instruction of a switch, by function: what LWP adds
{
	echo "# the context switch by function: kernel instructions per switch between the markers,"
	echo "# unprofiled (plain), both processes profiled per task (lwp) and CPU-wide (lwp-a),"
	echo "# and by task-clock per task (sw) and CPU-wide (sw-a)"
	# shellcheck disable=SC2086 # one word per run
	"$TOP/scripts/switch-attribution.py" "$map" $attribution | sed 's/^/SWITCH-ATTRIBUTION /'
} | tee -a "$out/results.txt"

# The cost of a sample: the same compute loop unsampled, sampled by
# lwp/instructions/ and by cpu-clock, each at two lengths; guest kernel
# instructions between the markers.  The difference between the two
# lengths leaves out what does not grow with the loop (perf record's
# start, what the kernel had left to do from before); less the unsampled
# loop's difference (the timer ticks), per sample more.  Under -icount, a
# sampled run has the unsampled run's timer ticks, not more because the
# emulator ran it slower.
# sampling LABEL N EVENT PERIOD [a|c]: the loop of N iterations; prints
# "LABEL N KERNEL_INSNS SAMPLES TICKS" (a: a CPU-wide event, perf record
# -a; c: per-task, with the CPU in each sample as -a has it)
loop_n1=${LOOP_N1:-20000000}
loop_n2=${LOOP_N2:-60000000}
sampling() {
	local label=$1 len=$2 log=$out/serial-samples-$1-$2.log
	local counts=$out/counts-samples-$1-$2.txt prof=$out/profile-samples-$1-$2.txt n t

	# shellcheck disable=SC2086 # icount is two words
	bench_boot --append "harness.bench=samples:$3:$4:$len${5:+:$5}" --log "$log" \
		$icount --qemu-arg=-plugin \
		--qemu-arg="$plugin,marker=$marker,out=$counts,profile=$prof$args" >/dev/null ||
		die "the sampling boot ($label, $len) failed (log: $log)"
	grep -q '^markers 2$' "$counts" || die "the plugin did not see both markers ($counts)"
	n=$(sed -n 's/.*bench: samples=\([0-9]*\).*/\1/p' "$log" | tail -1)
	# timer ticks: how often the plugin saw update_process_times' first
	# instruction
	t=$(awk -v a="$tick" '$1 == a { print $2 }' "$prof")
	echo "$label $len $(awk '$1 == "range" && $2 == "kernel" { print $3 }' "$counts") ${n:-0} ${t:-0}"
}
tick=$(awk '$3 == "update_process_times" { print $1 }' "$map")
# SAMPLES=0 leaves this part out.
if [ "${SAMPLES:-1}" != 0 ] && grep -q ' amd_lwp_pmu_init$' "$map"; then
	step "boot $cpu with the plugin, the cost of a sample (lwp vs cpu-clock)" true
	for len in $loop_n1 $loop_n2; do
		sampling none $len none 0
		sampling lwp $len lwp/instructions/ 10007
		sampling lwp-cpu $len lwp/instructions/ 10007 c
		sampling lwp-a $len lwp/instructions/ 10007 a
		sampling lwp-freq $len lwp/instructions/ F4000
		sampling cpu-clock $len cpu-clock 10000
	done >"$out/samples.txt"
	awk -v n1="$loop_n1" -v n2="$loop_n2" '
		$2 == n1 { k1[$1] = $3; s1[$1] = $4; t1[$1] = $5 }
		$2 == n2 { k2[$1] = $3; s2[$1] = $4; t2[$1] = $5 }
		END {
			printf "# the cost of a sample: loops of %d and %d iterations, guest kernel instructions\n", n1, n2
			printf "# between the markers, the difference less the unsampled loops%s (%d - %d,\n", "\047", k2["none"], k1["none"]
			printf "# %d - %d timer ticks), per sample more\n", t2["none"], t1["none"]
			for (e in k2) if (e != "none" && s2[e] > s1[e]) {
				c[e] = ((k2[e] - k1[e]) - (k2["none"] - k1["none"])) / (s2[e] - s1[e])
				printf "SAMPLE-COST %-10s %8d - %6d samples %12d - %10d kernel insns %8.1f per sample (%d - %d timer ticks)\n",
					e, s2[e], s1[e], k2[e], k1[e], c[e], t2[e], t1[e]
			}
			if (c["lwp"] > 0) {
				printf "SAMPLE-COST cpu-clock/lwp per-sample ratio: %.1fx\n", c["cpu-clock"] / c["lwp"]
				printf "SAMPLE-COST lwp -a/per-task per-sample ratio: %.3f (samples with the CPU both ways: %.3f)\n", c["lwp-a"] / c["lwp"], c["lwp-a"] / c["lwp-cpu"]
			}
		}' "$out/samples.txt" | tee -a "$out/results.txt"
	# where a sample's instructions go: the top kernel functions, per sample
	# (the unsampled run's timer ticks included)
	for e in lwp lwp-cpu lwp-a lwp-freq cpu-clock; do
		n=$(awk -v e="$e" -v l="$loop_n2" '$1 == e && $2 == l { print $4 }' "$out/samples.txt")
		[ "${n:-0}" -gt 0 ] || continue
		echo "# $e: kernel functions, instructions per sample of the longer loop"
		"$TOP/scripts/profile-syms.py" "$map" "$out/profile-samples-$e-$loop_n2.txt" "$n" 8 |
			sed "s/^/SAMPLE-PROFILE $e /"
	done | tee -a "$out/results.txt"
	# the sample path alone (the driver's drain and output, perf's
	# output functions), without the timer ticks and the scheduler that
	# make the kernel totals vary from run to run
	for e in lwp lwp-cpu lwp-a; do
		n=$(awk -v e="$e" -v l="$loop_n2" '$1 == e && $2 == l { print $4 }' "$out/samples.txt")
		[ "${n:-0}" -gt 0 ] || continue
		"$TOP/scripts/profile-syms.py" "$map" "$out/profile-samples-$e-$loop_n2.txt" "$n" 1000 |
			awk -v e="$e" -v n="$n" '$1 ~ /^(perf_lwp_|lwp_|perf_output|__output_copy|perf_prepare|perf_event_account)/ { t += $2 }
			END { printf "SAMPLE-PATH %-8s %10.1f kernel insns per sample in perf_lwp_*, lwp_*, perf_output_*, __output_copy, perf_prepare_*\n", e, t / n }'
	done | tee -a "$out/results.txt"
fi

# The emulator's own cost in host instructions (valgrind's count of what
# qemu-system-x86_64 executes, not wall clock): the tight loop of
# guest/lwp-speed.c (5 instructions, one branch) run once in a boot, under
# callgrind with the count switched on at its LWP-ONCE-START marker and
# off at its LWP-ONCE-END marker (the guest idles 3 s after each, so the
# switch lands while the emulator does next to nothing), at two lengths:
# their difference leaves out what the count cannot (timer ticks, the
# markers).  On the base's QEMU built alike (stock, scripts/build-qemu.sh
# stock), and on the series' with LWP off and with LWP counting
# instructions and branches.  HOST_N1/HOST_N2: the two lengths; HOST=0
# leaves this part out.
host_n1=${HOST_N1:-10000000}
host_n2=${HOST_N2:-210000000}
# wait_line FILE TEXT PID: until FILE has TEXT; fails if PID ends first
wait_line() {
	until grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.2
	done
}
# hostcount LABEL QEMU CPU MODE N: prints the host instructions of the loop
hostcount() {
	local label=$1 qemu=$2 hcpu=$3 mode=$4 n=$5 wrap=$out/host-$1-$5.sh
	local vg=$out/valgrind-$1-$5.log log=$out/serial-host-$1-$5.log cg=$out/callgrind-$1-$5.out
	local boot pid ir
	cat >"$wrap" <<-EOS
	#!/bin/sh
	exec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=$cg \
		--smc-check=all-non-file --log-file=$vg $qemu "\$@"
	EOS
	chmod +x "$wrap"
	rm -f "$log"
	# no_timer_check: so slow a CPU fails the kernel's check of the timer
	QEMU_BIN=$wrap cpu=$hcpu bench_boot --append "no_timer_check harness.bench=once:$mode:$n" \
		--log "$log" --timeout 3600 >/dev/null &
	boot=$!
	wait_line "$log" LWP-ONCE-START $boot || die "the boot under valgrind ($label, $n) failed (log: $log)"
	pid=$(pgrep -f -- "--callgrind-out-file=$cg") || die "no valgrind process for $cg"
	callgrind_control -i on "$pid" >/dev/null 2>&1
	wait_line "$log" LWP-ONCE-END $boot || die "the loop under valgrind ($label, $n) did not end (log: $log)"
	callgrind_control -i off "$pid" >/dev/null 2>&1
	wait "$boot" || die "the boot under valgrind ($label, $n) failed (log: $log)"
	grep -q "LWP-ONCE: tight loop, $n iterations, LWP $mode" "$log" ||
		die "the guest did not run the loop ($label, $n; log: $log)"
	ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$vg")
	[ -n "$ir" ] || die "no instruction count from valgrind ($vg)"
	echo "$ir"
}
if [ "${HOST:-1}" != 0 ]; then
	need_cmd valgrind
	"$TOP/scripts/build-qemu.sh" stock
	stock=$BUILD/stock/qemu-build/qemu-system-x86_64
	# stock QEMU 7.2 hangs Linux on Opteron_G5 unless XSAVEOPT is on
	# (the first two patches of the series fix that)
	stock_cpu=${cpu%%,*},+xsaveopt
	: >"$out/host.txt"
	for run in "stock $stock $stock_cpu off" "series-off $QEMU_BIN $cpu off" \
		   "series-on $QEMU_BIN $cpu on"; do
		# shellcheck disable=SC2086 # four words
		set -- $run
		note "boots on $3 under valgrind: the tight loop $host_n1 and $host_n2 times ($1)"
		a=$(hostcount "$1" "$2" "$3" "$4" "$host_n1")
		b=$(hostcount "$1" "$2" "$3" "$4" "$host_n2")
		echo "$1 $a $b" >>"$out/host.txt"
	done
	awk -v n1="$host_n1" -v n2="$host_n2" '
		{ per[$1] = ($3 - $2) / (n2 - n1); a[$1] = $2; b[$1] = $3 }
		END {
			printf "# the emulator in host instructions (valgrind): the tight loop, 5 guest\n"
			printf "# instructions an iteration, %d and %d iterations in a boot each\n", n1, n2
			for (k in per)
				printf "HOST-INSNS %-10s %14.0f %14.0f  %6.2f host insns per iteration\n", k, a[k], b[k], per[k]
			printf "HOST-INSNS LWP off / stock: %.3fx; LWP on / stock: %.3fx; LWP on / off: %.3fx\n",
				per["series-off"] / per["stock"], per["series-on"] / per["stock"],
				per["series-on"] / per["series-off"]
		}' "$out/host.txt" | tee -a "$out/results.txt"
fi

# The emulator's speed with LWP counting, without the plugin: the same
# loops with LWP off and on, in one boot (guest/lwp-speed.c).
step "boot $cpu, emulator speed with LWP off and on" \
	bench_boot --append "harness.bench=speed" --log "$out/serial-speed.log"
grep -h 'LWP-SPEED' "$out/serial-speed.log" | sed 's/^\[[ 0-9.]*\] //' | tee -a "$out/results.txt"
