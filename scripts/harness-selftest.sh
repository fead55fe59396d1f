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
judge() { "$TOP/scripts/run-qemu.py" --quiet --qemu none --kernel none --initrd none --cpu none \
	--label replay --log "$tmp/replay.log" --replay "$1"; }
fake_log "[    1.234567] WARNING: CPU: 0 PID: 1 at kernel/foo.c:1 bar+0x0/0x10" >"$tmp/warn.txt"
expect "a kernel WARNING in the serial log fails the run" "kernel log clean: .*WARNING" judge "$tmp/warn.txt"
fake_log "user output [    2.000001] unchecked MSR access error: WRMSR to 0xc0000105" >"$tmp/msr.txt"
expect "an unchecked MSR access in the serial log fails the run" "kernel log clean: .*unchecked MSR access" judge "$tmp/msr.txt"
fake_log "HARNESS: kmemleak: 3 unreferenced objects" >"$tmp/leak.txt"
expect "a kmemleak report fails the run" "kmemleak finds no leak: 3 unreferenced" judge "$tmp/leak.txt"
fake_log "not ok 2 something else # exit=1" >"$tmp/notok.txt"
expect "a failing TAP line fails the run" "FAIL: replay: 10-fake: something else" judge "$tmp/notok.txt"
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
