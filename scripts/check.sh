#!/usr/bin/env bash
# make check: lint and checkpatch the series, verify their canonical form,
# build kernel and QEMU, boot the kernel on the LWP CPU model and on a CPU
# without LWP, run every guest suite, then build the debug kernel (KASAN,
# lockdep, kmemleak, UBSAN) and run every suite that touches LWP on it, and
# print "N passed, N failed".  FAST=1 leaves the debug kernel out.
. "$(dirname "$0")/lib.sh"

: "${CPU_LWP:?}" "${CPU_NOLWP:?}"
variant=plain
kout=$(kernel_out $variant)
out=$BUILD/check
mkdir -p "$out"
results=$out/results.txt
: >"$results"
T0=$(date +%s)

record() {	# record PASS|FAIL|SKIP NAME DETAIL
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$results"
	[ "$1" = FAIL ] && echo "FAIL: $2${3:+: $3}"
	return 0
}

# host_test NAME CMD...: one result from a command's exit status; its output
# is kept in $out/NAME.log and shown on failure.
host_test() {
	local name=$1 log rc=0
	shift
	log=$out/$(echo "$name" | tr -c 'a-zA-Z0-9_.-' '_').log
	note "$name (log: ${log#"$TOP"/})"
	step "$name" "$@" >"$log" 2>&1 || rc=$?
	grep '^==> .*: \(done\|FAILED\)' "$log" | tail -1
	if [ $rc -eq 0 ]; then
		record PASS "$name"
	else
		tail -25 "$log" | sed 's/^/    /'
		record FAIL "$name" "see $log"
	fi
	return $rc
}

# checkpatch SERIES LABEL CMD...: one result per patch of patches/SERIES.
checkpatch() {
	local series=$1 label=$2 f rc=0
	shift 2
	while read -r f; do
		if "$@" "$TOP/patches/$series/$f" >"$out/checkpatch.txt" 2>&1; then
			record PASS "$label: $series/$f"
		else
			sed 's/^/    /' "$out/checkpatch.txt" | head -40
			record FAIL "$label: $series/$f" "$(grep -E '^total:' "$out/checkpatch.txt")"
			rc=1
		fi
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/$series/series")
	return $rc
}

boot() {	# boot LABEL CPU [KERNEL_BUILD_DIR [KERNEL_ARGS [RUN_QEMU_ARGS...]]]
	local label=$1 cpu=$2 k=${3:-$kout} append=${4:-}
	shift $(($# < 4 ? $# : 4))
	note "boot the kernel ${k#"$TOP"/} on $label ($cpu) and run the guest suites"
	run_guest "$k" "$cpu" --quiet --label "$label" --log "$out/serial-$label.log" \
		--results "$results" --timeout "${GUEST_TIMEOUT:-1200}" \
		--append "${GUEST_APPEND:-} $append" "$@" || true
	# the results file holds the verdict
	echo "    serial log: $out/serial-$label.log"
}

"$TOP/scripts/deps.sh"

ok_series=1
for s in linux qemu; do
	host_test "series lint: patches/$s" "$TOP/scripts/series.sh" lint $s || ok_series=0
done
for s in linux qemu; do
	host_test "canonical form: patches/$s (git am on the base, re-export unchanged)" \
		"$TOP/scripts/series.sh" sync $s || ok_series=0
done
if [ $ok_series = 1 ]; then
	# checkpatch runs python3 for codespell and the SPDX check: Debian's
	PATH=/usr/bin:$PATH checkpatch linux "checkpatch --strict" \
		perl "$BUILD/linux/scripts/checkpatch.pl" --strict --no-signoff --codespell \
		--codespellfile=/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt \
		--root="$BUILD/linux" -q || true
	checkpatch qemu "QEMU checkpatch" perl "$BUILD/qemu/scripts/checkpatch.pl" --no-signoff -q || true
fi

built=1
[ $ok_series = 1 ] || { record FAIL "builds" "skipped: the series are broken (see above)"; built=0; }
if [ $built = 1 ]; then
	host_test "kernel build ($variant)" "$TOP/scripts/build-kernel.sh" $variant || built=0
	if [ $built = 1 ]; then
		note "W=1 + sparse on the C files the kernel series touches"
		if wout=$("$TOP/scripts/kernel-warnings.py" "$BUILD/linux" "$kout" 2>&1); then
			case "$wout" in
			SKIP:*) record SKIP "kernel: no new W=1/sparse warnings" "${wout#SKIP: }" ;;
			*) record PASS "kernel: no new W=1/sparse warnings" ;;
			esac
		else
			record FAIL "kernel: no new W=1/sparse warnings" "$(echo "$wout" | grep -m3 '^NEW\|failed' | tr '\n' ' ')"
		fi
		echo "$wout" | sed 's/^/    /'
	fi
	host_test "QEMU build" "$TOP/scripts/build-qemu.sh" || built=0
	host_test "perf build (tools/perf of the kernel tree)" "$TOP/scripts/build-perf.sh" || built=0
	host_test "initramfs build" "$TOP/scripts/build-initramfs.sh" $variant || built=0
fi
if [ $built = 1 ]; then
	boot lwp-cpu "$CPU_LWP"
	# QEMU's stderr is in the serial log, after the command line: TCG must
	# offer LWP's XSAVE component (CPUID 0xD.0 EDX[30]) without filtering
	# anything out of EAX, which has no bit 62
	log=$out/serial-lwp-cpu.log
	name="QEMU offers LWP's XSAVE component under TCG without a warning"
	if ! grep -q '^# .*qemu-system-x86_64 ' "$log" 2>/dev/null; then
		record FAIL "$name" "no QEMU command line in $log"
	elif grep -q "TCG doesn't support requested feature: CPUID.0DH" "$log"; then
		record FAIL "$name" "$(grep -m1 "CPUID.0DH" "$log")"
	else
		record PASS "$name"
	fi
	boot no-lwp-cpu "$CPU_NOLWP"
	# The LWP CPU model under -icount (the guest's clock follows the
	# instructions it runs; record/replay builds on it): the emulator's
	# records and threshold interrupt as without it (QEMU used to abort
	# at the first threshold interrupt), with Debian's perf; single-threaded
	# TCG, as icount needs
	boot icount-lwp-cpu "$CPU_LWP" "$kout" \
		"harness.suites=20-lwp-emulator,30-lwp-perf,34-lwp-perf-markers harness.perfs=debian" \
		--accel tcg,thread=single --qemu-arg=-icount --qemu-arg=shift=0,sleep=off
fi

# The debug kernel (configs/debug.config) on the LWP CPU model, with every
# suite that touches LWP: the emulator conformance suite, the lwp perf suites
# with Debian's perf (the tree's perf runs them on the plain kernel), the churn and the injected allocation failures (the
# debug kernel has fault injection), and the series' lwp kselftests.  It runs
# longer than the other boots: 40 minutes before it counts as hung.  panic_on_warn=1 makes
# the first WARN, KASAN or UBSAN report end the run where it happened; the
# judge also fails on lockdep and kmemleak reports and says which spoke.
# The initramfs is the plain kernel's: it holds no module and the UAPI
# headers the programs were built against do not depend on the config.
if [ "${FAST:-0}" = 1 ]; then
	record SKIP "debug kernel (KASAN, lockdep, kmemleak, UBSAN)" "FAST=1"
elif [ $built = 1 ]; then
	if host_test "kernel build (debug)" "$TOP/scripts/build-kernel.sh" debug; then
		boot debug-lwp-cpu "$CPU_LWP" "$(kernel_out debug)" \
			"panic_on_warn=1 harness.debug=1 harness.suites=lwp,kselftests harness.kselftests=lwp harness.perfs=debian" --debug-checks \
			--timeout "${GUEST_TIMEOUT_DEBUG:-2400}"
	fi
fi

note "harness self-tests (bad input gives a clear message and a non-zero exit)"
if [ $built = 1 ]; then
	"$TOP/scripts/harness-selftest.sh" "$QEMU_BIN" "$kout/arch/x86/boot/bzImage" "$INITRD"
else
	"$TOP/scripts/harness-selftest.sh"
fi | tee -a "$results" | awk -F'\t' '{ printf "    %s %s\n", $1, $2 }'

echo
echo "Results ($results):"
awk -F'\t' '$1 == "SKIP" { printf "  skipped: %s (%s)\n", $2, $3 }' "$results"
awk -F'\t' '$1 == "FAIL" { printf "  FAILED:  %s (%s)\n", $2, $3 }' "$results"
echo "make check took $(($(date +%s) - T0)) s"
pass=$(grep -c '^PASS' "$results" || true)
fail=$(grep -c '^FAIL' "$results" || true)
skip=$(grep -c '^SKIP' "$results" || true)
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
