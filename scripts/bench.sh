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

# pingpong LABEL BENCH_ARG: one boot with the plugin, the figures per switch
pingpong() {
	local label=$1 arg=$2 log=$out/serial-$1.log counts=$out/counts-$1.txt

	step "boot $cpu with the plugin, $rounds ping-pong rounds ($label)" \
		bench_boot --append "harness.bench=$arg" --log "$log" \
		--qemu-arg=-plugin --qemu-arg="$plugin,marker=$marker,out=$counts$args"

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
}

echo "# make bench: $(date -u +%F) kernel $(cat "$kout/include/config/kernel.release" 2>/dev/null) cpu $cpu" |
	tee "$out/results.txt"
pingpong plain "$rounds"
# (b) both processes profiled by the lwp PMU, LWP active in both
if grep -q ' amd_lwp_pmu_init$' "$map"; then
	pingpong lwp "lwp:$rounds"
	# (c) the same, profiled by a CPU-wide event (perf record -a)
	pingpong lwp-a "lwpa:$rounds"
fi

# The cost of a sample: the same compute loop unsampled, sampled by
# lwp/instructions/ and by cpu-clock; guest kernel instructions between the
# markers, minus the unsampled run's, per sample perf got.
# sampling LABEL EVENT PERIOD [a|c]: prints "LABEL KERNEL_INSNS SAMPLES"
# (a: a CPU-wide event, perf record -a; c: per-task, with the CPU in each
# sample as -a has it)
loop_n=20000000
sampling() {
	local label=$1 log=$out/serial-samples-$1.log counts=$out/counts-samples-$1.txt n

	bench_boot --append "harness.bench=samples:$2:$3:$loop_n${4:+:$4}" --log "$log" \
		--qemu-arg=-plugin \
		--qemu-arg="$plugin,marker=$marker,out=$counts,profile=$out/profile-samples-$1.txt$args" >/dev/null ||
		die "the sampling boot ($label) failed (log: $log)"
	grep -q '^markers 2$' "$counts" || die "the plugin did not see both markers ($counts)"
	n=$(sed -n 's/.*bench: samples=\([0-9]*\).*/\1/p' "$log" | tail -1)
	echo "$label $(awk '$1 == "range" && $2 == "kernel" { print $3 }' "$counts") ${n:-0}"
}
if grep -q ' amd_lwp_pmu_init$' "$map"; then
	step "boot $cpu with the plugin, the cost of a sample (lwp vs cpu-clock)" true
	{
		sampling none none 0
		sampling lwp lwp/instructions/ 10007
		sampling lwp-cpu lwp/instructions/ 10007 c
		sampling lwp-a lwp/instructions/ 10007 a
		sampling lwp-freq lwp/instructions/ F4000
		sampling cpu-clock cpu-clock 10000
	} >"$out/samples.txt"
	awk -v loop="$loop_n" '
		{ k[$1] = $2; n[$1] = $3 }
		END {
			printf "# the cost of a sample: a %d-iteration loop, guest kernel instructions\n", loop
			printf "# between the markers beyond the unsampled run (%d), per sample\n", k["none"]
			for (e in n) if (e != "none" && n[e] > 0) {
				c[e] = (k[e] - k["none"]) / n[e]
				printf "SAMPLE-COST %-10s %8d samples %14d kernel insns %10.1f per sample\n", e, n[e], k[e], c[e]
			}
			if (c["lwp"] > 0) {
				printf "SAMPLE-COST cpu-clock/lwp per-sample ratio: %.1fx\n", c["cpu-clock"] / c["lwp"]
				printf "SAMPLE-COST lwp -a/per-task per-sample ratio: %.3f (samples with the CPU both ways: %.3f)\n", c["lwp-a"] / c["lwp"], c["lwp-a"] / c["lwp-cpu"]
			}
		}' "$out/samples.txt" | tee -a "$out/results.txt"
	# where a sample's instructions go: the top kernel functions, per sample
	# (the unsampled run's timer ticks included)
	for e in lwp lwp-cpu lwp-a lwp-freq cpu-clock; do
		n=$(awk -v e="$e" '$1 == e { print $3 }' "$out/samples.txt")
		[ "${n:-0}" -gt 0 ] || continue
		echo "# $e: kernel functions, instructions per sample"
		"$TOP/scripts/profile-syms.py" "$map" "$out/profile-samples-$e.txt" "$n" 8 |
			sed "s/^/SAMPLE-PROFILE $e /"
	done | tee -a "$out/results.txt"
	# the sample path alone (the driver's drain and output, perf's
	# output functions), without the timer ticks and the scheduler that
	# make the kernel totals vary from run to run
	for e in lwp lwp-cpu lwp-a; do
		n=$(awk -v e="$e" '$1 == e { print $3 }' "$out/samples.txt")
		[ "${n:-0}" -gt 0 ] || continue
		"$TOP/scripts/profile-syms.py" "$map" "$out/profile-samples-$e.txt" "$n" 1000 |
			awk -v e="$e" -v n="$n" '$1 ~ /^(perf_lwp_|lwp_|perf_output|__output_copy|perf_prepare|perf_event_account)/ { t += $2 }
			END { printf "SAMPLE-PATH %-8s %10.1f kernel insns per sample in perf_lwp_*, lwp_*, perf_output_*, __output_copy, perf_prepare_*\n", e, t / n }'
	done | tee -a "$out/results.txt"
fi

# The emulator's speed with LWP counting, without the plugin: the same
# loops with LWP off and on, in one boot (guest/lwp-speed.c).
step "boot $cpu, emulator speed with LWP off and on" \
	bench_boot --append "harness.bench=speed" --log "$out/serial-speed.log"
grep -h 'LWP-SPEED' "$out/serial-speed.log" | sed 's/^\[[ 0-9.]*\] //' | tee -a "$out/results.txt"
