# Minimal TAP producer for the guest suites (busybox sh).
# Usage: . /harness/lib/tap.sh; plan N (or plan_end after the tests); ok "desc" | not_ok "desc" | skip "desc" "reason"
# check "desc" CMD...: ok if CMD succeeds, else not ok with its output.
_tap_n=0
_tap_fail=0
plan() { echo "TAP version 13"; echo "1..$1"; }
plan_end() { echo "1..$_tap_n"; }	# the plan after the tests, when not known before
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $1"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_fail=1; echo "not ok $_tap_n $1"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $1 # SKIP $2"; }
diag() { echo "$*" | sed 's/^/# /'; }
check() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_d"
	else
		diag "$_out" | tail -n 20
		not_ok "$_d"
	fi
}
tap_done() { exit $_tap_fail; }
