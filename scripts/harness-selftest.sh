#!/usr/bin/env bash
# Tests of the harness itself: bad input must give a clear message and a
# non-zero exit.  Prints one line per test: "PASS|FAIL<TAB>name<TAB>detail".
#   harness-selftest.sh [QEMU KERNEL INITRD]   (the hung-guest test needs them)
. "$(dirname "$0")/lib.sh"
set +e

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME PATTERN CMD...: CMD must fail and print PATTERN.
expect() {
	local name=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$pat" <<<"$out"; then
		printf 'PASS\tharness: %s\texit %d: %s\n' "$name" $rc "$(grep -m1 -- "$pat" <<<"$out")"
	else
		printf 'FAIL\tharness: %s\texit %d, wanted a failure saying "%s"; got: %s\n' \
			"$name" $rc "$pat" "$(tail -3 <<<"$out" | tr '\n' ' ')"
	fi
}

# A throw-away "base" repository and patch directory, so that the real
# trees are never touched.
fake=$tmp/top
mkdir -p "$fake/patches/linux" "$fake/build/linux"
git -C "$fake/build/linux" init -q -b master
printf 'one\ntwo\n' >"$fake/build/linux/file"
git -C "$fake/build/linux" add file
git -C "$fake/build/linux" -c user.name=t -c user.email=t@t commit -q -m base
git -C "$fake/build/linux" tag base
run_series() { TOP=$fake BUILD=$fake/build "$TOP/scripts/series.sh" "$@"; }

: >"$fake/patches/linux/series"
expect "an empty series is refused" "lists no patches" run_series lint linux

cat >"$fake/patches/linux/0001-bad.patch" <<'EOP'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: T <t@t>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] file: Change a line that is not there

---
 file | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/file b/file
--- a/file
+++ b/file
@@ -1,2 +1,2 @@
 one
-three
+four
EOP
echo 0001-bad.patch >"$fake/patches/linux/series"
expect "a patch that does not apply is refused" "broken series" run_series sync linux
echo 0002-missing.patch >>"$fake/patches/linux/series"
expect "a series entry without its file is refused" "which does not exist" run_series lint linux

expect "a kernel pin the archive lacks is reported" "pinned kernel base is gone" \
	env LINUX_PKG=${LINUX_PKG:-linux-source-6.12} LINUX_DEB_VERSION=0.0.0-0~bogus LINUX_DEB_SHA256=0 CACHE=$tmp/cache BUILD=$tmp/build \
	"$TOP/scripts/fetch-linux.sh"
expect "a QEMU pin the archive lacks is reported" "pinned QEMU base is gone" \
	env QEMU_SRC_VERSION=1:0.0+bogus-0 QEMU_DSC_SHA256=0 QEMU_ORIG_SHA256=0 QEMU_DEBIAN_SHA256=0 \
	CACHE=$tmp/cache BUILD=$tmp/build "$TOP/scripts/fetch-qemu.sh"

# The serial-log judge: a kernel warning fails a run whose tests all pass,
# a failing TAP line fails it, and a clean log passes.
fake_log() {	# fake_log EXTRA_LINE...
	echo "HARNESS: shell-up uptime=1.00 kernel=x"
	echo "HARNESS: suite 10-fake begin"
	echo "ok 1 something works"
	printf '%s\n' "$@"
	echo "HARNESS: suite 10-fake end rc=0 seconds=0.1"
	echo "HARNESS: exit status=0 uptime=2.00"
}
judge() {	# judge SERIAL_LOG [RUN_QEMU_ARGS...]
	local log=$1
	shift
	"$TOP/scripts/run-qemu.py" --quiet --qemu none --kernel none --initrd none --cpu none \
		--label replay --log "$tmp/replay.log" --replay "$log" "$@"
}
fake_log "[    1.234567] WARNING: CPU: 0 PID: 1 at kernel/foo.c:1 bar+0x0/0x10" >"$tmp/warn.txt"
expect "a kernel WARNING in the serial log fails the run" "kernel log clean: .*WARNING" judge "$tmp/warn.txt"
fake_log "user output [    2.000001] unchecked MSR access error: WRMSR to 0xc0000105" >"$tmp/msr.txt"
expect "an unchecked MSR access in the serial log fails the run" "kernel log clean: .*unchecked MSR access" judge "$tmp/msr.txt"
fake_log "HARNESS: kmemleak: 3 unreferenced objects" >"$tmp/leak.txt"
expect "a kmemleak report fails the run" "kmemleak finds no leak: 3 unreferenced" judge "$tmp/leak.txt"

# The debug kernel's checkers, as their reports reach the serial console:
# each must fail a run whose tests all pass, and the verdict must name it.
fake_log "[   41.102938] ==================================================================" \
	"[   41.103122] BUG: KASAN: slab-use-after-free in lwp_drain+0x2d4/0x5c0" \
	"[   41.103540] Read of size 8 at addr ffff888006f1c238 by task lwp_perf_64/211" \
	"[   41.104001] Call Trace:" \
	"[   41.104200]  <IRQ>" >"$tmp/kasan.txt"
expect "a KASAN report fails the run and is named" "kernel log clean: KASAN x1: " judge "$tmp/kasan.txt"
fake_log "[   12.500001] ======================================================" \
	"[   12.500102] WARNING: possible circular locking dependency detected" \
	"[   12.500230] 6.12.118-lwp #1 Not tainted" \
	"[   12.500391] ------------------------------------------------------" \
	"[   12.500517] perf/190 is trying to acquire lock:" >"$tmp/lockdep.txt"
expect "a lockdep report fails the run and is named" "kernel log clean: lockdep x1: " judge "$tmp/lockdep.txt"
fake_log "[    7.310000] ================================================================================" \
	"[    7.310321] UBSAN: shift-out-of-bounds in arch/x86/events/amd/lwp.c:233:19" \
	"[    7.310555] shift exponent 64 is too large for 64-bit type 'long unsigned int'" >"$tmp/ubsan.txt"
expect "a UBSAN report fails the run and is named" "kernel log clean: UBSAN x1: " judge "$tmp/ubsan.txt"
fake_log "HARNESS: kmemleak: 1 unreferenced objects" \
	"unreferenced object 0xffff888004b2e400 (size 128):" \
	'  comm "lwp_perf_64", pid 207, jiffies 4294912345' \
	"  backtrace (crc 5a1f09c2):" \
	"    kmalloc_trace_noprof+0x1d5/0x2c0" >"$tmp/kmemleak.txt"
expect "a kmemleak report fails the run and is named" "kernel log clean: kmemleak x1: " judge "$tmp/kmemleak.txt"
fake_log "[    9.000001] BUG: sleeping function called from invalid context at mm/slub.c:4164" >"$tmp/sleep.txt"
expect "a sleep in atomic context fails the run and is named" "kernel log clean: atomic sleep x1" judge "$tmp/sleep.txt"
# panic_on_warn: the run ends at the WARN with no exit status at all
printf '%s\n' "HARNESS: shell-up uptime=1.00 kernel=x" "HARNESS: suite 30-fake begin" "ok 1 first" \
	"[   20.000001] WARNING: CPU: 1 PID: 300 at arch/x86/events/amd/lwp.c:400 lwp_drain+0x10/0x20" \
	"[   20.000200] Kernel panic - not syncing: kernel: panic_on_warn set ..." >"$tmp/panic.txt"
expect "a WARN under panic_on_warn fails the run (no exit status)" "guest finished: no exit status" judge "$tmp/panic.txt"
# a debug kernel whose checkers are off or went quiet does not pass as clean
fake_log "HARNESS: debug-checkers debug_locks=1" >"$tmp/noleakscan.txt"
expect "a debug run without a kmemleak scan fails" "reported no kmemleak scan" judge "$tmp/noleakscan.txt" --debug-checks
fake_log "HARNESS: debug-checkers debug_locks=0" "HARNESS: kmemleak: 0 unreferenced objects" >"$tmp/lockdepoff.txt"
expect "a debug run whose lockdep turned off fails" "lockdep still on at the end: debug_locks=0" judge "$tmp/lockdepoff.txt" --debug-checks
fake_log "HARNESS: debug-checkers debug_locks=1" "HARNESS: kmemleak: off (it disabled itself; see dmesg)" >"$tmp/leakoff.txt"
expect "a debug run whose kmemleak turned off fails" "kmemleak finds no leak: kmemleak: off" judge "$tmp/leakoff.txt" --debug-checks
# what a clean debug kernel prints at boot (lockdep's banner names its limits)
fake_log "[    1.302501] ... MAX_LOCKDEP_SUBCLASSES:  8" "[    1.303493] ... MAX_LOCKDEP_ENTRIES:     32768" \
	"[    1.304000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15683)" \
	"HARNESS: debug-checkers debug_locks=1" "HARNESS: kmemleak: 0 unreferenced objects" >"$tmp/debugclean.txt"
fake_log "[   30.000001] BUG: MAX_LOCKDEP_ENTRIES too low!" >"$tmp/lockdepfull.txt"
expect "a lockdep table that ran out fails the run and is named" "kernel log clean: lockdep x1" judge "$tmp/lockdepfull.txt"
if out=$(judge "$tmp/debugclean.txt" --debug-checks 2>&1); then
	printf 'PASS\tharness: a clean debug-kernel log passes\t%s\n' "$(tail -1 <<<"$out")"
else
	printf 'FAIL\tharness: a clean debug-kernel log passes\t%s\n' "$(tail -2 <<<"$out" | tr '\n' ' ')"
fi
fake_log "not ok 2 something else # exit=1" >"$tmp/notok.txt"
expect "a failing TAP line fails the run" "FAIL: replay: 10-fake: something else" judge "$tmp/notok.txt"
fake_log "# 41 samples, 50 expected" "not ok 2 as many samples as records" >"$tmp/notokdiag.txt"
expect "a failing test's summary line carries what it printed before" \
	"FAIL: replay: 10-fake: as many samples as records: 41 samples, 50 expected" judge "$tmp/notokdiag.txt"
fake_log "ok 2 optional # SKIP no hardware" >"$tmp/clean.txt"
if out=$(judge "$tmp/clean.txt" 2>&1); then
	printf 'PASS\tharness: a clean serial log passes\t%s\n' "$(tail -1 <<<"$out")"
else
	printf 'FAIL\tharness: a clean serial log passes\t%s\n' "$(tail -2 <<<"$out" | tr '\n' ' ')"
fi

if [ $# -eq 3 ]; then
	expect "a hung guest is killed and reported" "killed after" \
		"$TOP/scripts/run-qemu.py" --quiet --qemu "$1" --kernel "$2" --initrd "$3" \
		--cpu "${CPU_NOLWP:-EPYC}" --label hang-test --log "$tmp/hang.log" \
		--results "$tmp/hang.results" --timeout 15 --append harness.mode=hang
	grep -q 'killed after' "$tmp/hang.results" 2>/dev/null &&
		sed -n 's/^FAIL\t/    hang-test result: /p' "$tmp/hang.results" >&2
fi
exit 0
