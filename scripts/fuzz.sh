#!/usr/bin/env bash
# make fuzz: trinity against the lwp PMU on the debug kernel (KASAN,
# lockdep, kmemleak, UBSAN, panic_on_warn) on the LWP CPU model, one boot
# per seed, as an unprivileged user with perf_event_paranoid 2
# (guest/fuzz.sh).  Not part of make check: 3 seeds x 5 minutes by default.
#   fuzz.sh [SEED...]       FUZZ_SECONDS (300) per seed; seeds 1 2 3 by default
# A seed fails on any kernel report, a kmemleak leak, lockdep turned off, a
# hung or crashed guest, or trinity itself failing.  Prints "N passed,
# N failed" like make check; the serial logs are in build/fuzz/.
. "$(dirname "$0")/lib.sh"

secs=${FUZZ_SECONDS:-300}
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS must be a number of seconds, not '$secs'"
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3)
for s in "${seeds[@]}"; do
	[[ $s =~ ^[0-9]+$ ]] || die "a trinity seed is a number, not '$s' (make fuzz FUZZ_SEEDS='1 2 3')"
done
kout=$(kernel_out debug)
[ -f "$kout/arch/x86/boot/bzImage" ] || die "no debug kernel in $kout: run make fuzz, not this script"
out=$BUILD/fuzz
rm -rf "$out"
mkdir -p "$out"

pass=0
fail=0
for s in "${seeds[@]}"; do
	log=$out/serial-seed$s.log
	rc=0
	step "trinity, seed $s, $secs s (debug kernel, $CPU_LWP)" \
		run_guest "$kout" "$CPU_LWP" --mode fuzz --label "fuzz-seed$s" --log "$log" \
		--quiet --debug-checks --results "$out/results.tsv" --timeout $((secs + 900)) \
		--append "panic_on_warn=1 harness.debug=1 harness.fuzz=$s:$secs" || rc=$?
	line=$(grep -a -o 'FUZZ: seed=.*' "$log" | tail -1)
	echo "${line:-FUZZ: seed=$s: no totals (see $log)}"
	if [ $rc -eq 0 ] && [ -n "$line" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAILED: seed $s (log: $log)"
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
