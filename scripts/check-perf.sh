#!/usr/bin/env bash
# make check-perf: the whole "perf test" of the kernel tree's perf, on the
# LWP CPU model, once on the series' kernel and once on the unpatched base
# kernel (same configuration less LWP), and the two compared.  A test fails
# here when it fails with the series and either passes on the base (the
# series broke it) or is not in guest/perf-test-skip.txt (a failure nobody
# explained); a listed test that passes on both is noted (flaky, or a stale
# entry), an entry perf test does not list fails.  Ends with "N passed, N
# failed".  Slow (two kernels, ~10 min of perf test each).
. "$(dirname "$0")/lib.sh"

: "${CPU_LWP:?}"
out=$BUILD/check-perf
mkdir -p "$out"
skips=$TOP/guest/perf-test-skip.txt

"$TOP/scripts/deps.sh"
step "build the base kernel (unpatched, for comparison)" "$TOP/scripts/build-kernel.sh" base

for k in base plain; do
	note "perf test on the $k kernel ($CPU_LWP)"
	: >"$out/results-$k.txt"
	run_guest "$(kernel_out $k)" "$CPU_LWP" --quiet --label "$k" --log "$out/serial-$k.log" \
		--results "$out/results-$k.txt" --timeout "${GUEST_TIMEOUT:-3600}" \
		--append "harness.suites=perf-test harness.perftest=all" || true
	echo "    serial log: $out/serial-$k.log"
done

# "STATUS<TAB>LABEL: 60-perf-test: NAME<TAB>DETAIL" -> "NAME<TAB>STATUS"
for k in base plain; do
	awk -F'\t' -v p="$k: 60-perf-test: " 'index($2, p) == 1 { print substr($2, length(p) + 1) "\t" $1 }' \
		"$out/results-$k.txt" | sort -t "$(printf '\t')" -k1,1 >"$out/tests-$k.txt"
done
python3 - "$out/tests-base.txt" "$out/tests-plain.txt" "$skips" <<'EOF'
import sys

def load(path):
    d = {}
    for line in open(path):
        name, status = line.rstrip("\n").split("\t")
        d[name] = status
    return d

base, series = load(sys.argv[1]), load(sys.argv[2])
listed = {}
for line in open(sys.argv[3]):
    if line.startswith("#") or " | " not in line:
        continue
    name, why = line.rstrip("\n").split(" | ", 1)
    listed[name] = why
def why(name):
    """The skip list's reason for a test, or for the test a sub-test is of."""
    for k, v in listed.items():
        if name == k or name.startswith(k + ": "):
            return v
    return None

if not base or not series:
    print("FAILED: no perf test results (base %d, series %d tests): see the serial logs" % (len(base), len(series)))
    print("0 passed, 1 failed")
    sys.exit(1)
npass = nfail = 0
counts = {}
for name in sorted(set(base) | set(series)):
    b, s = base.get(name, "absent"), series.get(name, "absent")
    counts[s] = counts.get(s, 0) + 1
    bad = None
    if s in ("FAIL", "absent") and b == "PASS":
        bad = "passes on the base kernel, %s with the series" % s
    elif s == "FAIL" and why(name) is None:
        bad = "fails (on the base: %s) and is not in guest/perf-test-skip.txt" % b
    if bad:
        nfail += 1
        print("FAILED: %s: %s" % (name, bad))
    else:
        npass += 1
        if s != b:
            print("note: %s: %s on the base, %s with the series" % (name, b, s))
        elif why(name) is not None and b == "PASS":
            print("note: %s: in guest/perf-test-skip.txt, but passed on both kernels (flaky, or a stale entry)" % name)
names = set(base) | set(series)
stale = [k for k in listed if not any(n == k or n.startswith(k + ": ") for n in names)]
for n in stale:
    nfail += 1
    print("FAILED: guest/perf-test-skip.txt names '%s', which perf test does not list" % n)
print("perf test with the series: %s" % ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())))
print("%d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
EOF
