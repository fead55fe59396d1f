# perf top --stdio for the guest suites (30-lwp-perf, 33-lwp-perf-system):
# . /harness/lib/perf-top.sh after tap.sh, with W the suite's directory.

# perf_top OUT ARGS...: perf top --stdio ARGS -d 2 for 20 s, its output in
# OUT, its exit status in rc.  --stdio reads its keys from stdin with
# poll(): on /dev/null it spins on EOF and prints its help forever, so
# stdin is a FIFO held open by a writer that never writes.  20 s: perf top
# starts slowly on the debug kernel (12 s once showed no screen with
# samples).
#
# The tree's perf 6.12 died once of a SIGSEGV in perf top before its first
# screen (33-lwp-perf-system, CI, 2026-12-07; its screens and its own
# backtrace were still in stdio's buffer); not again in 11 runs of that
# suite with that perf, 20 runs of the same perf top and 10 of it built
# with AddressSanitizer, which reported nothing.  A perf top killed by a
# signal is reported, with the kernel's line about the fault if there is
# one (only before perf sets its own SIGSEGV handler), and run once more.
perf_top() {
	_pt_out=$1
	_pt_try=1
	shift
	rm -f "$W/perf-top.in"
	mkfifo "$W/perf-top.in"
	while :; do
		sleep 600 >"$W/perf-top.in" &
		_pt_hold=$!
		timeout -s INT 20 perf top --stdio "$@" -d 2 <"$W/perf-top.in" >"$_pt_out" 2>&1
		rc=$?
		kill "$_pt_hold" 2>/dev/null
		wait "$_pt_hold" 2>/dev/null
		[ $rc -gt 128 ] && [ $rc -lt 160 ] && [ $_pt_try -eq 1 ] || return 0
		diag "perf top $* died of signal $((rc - 128)) (its last lines: $(tail -n 3 "$_pt_out" | tr '\n' '|')); once more"
		_pt_k=$(dmesg | grep -E 'segfault at|trap .* ip ' | tail -n 2)
		[ -z "$_pt_k" ] || diag "$_pt_k"
		_pt_try=2
	done
}

# perf_top_tail OUT: the last lines of its screens, without the escapes
perf_top_tail() {
	tr -d '\033' <"$1" | grep -v '^\[H\[2J$' | tail -n 25
}
