#!/usr/bin/env python3
"""Attribute the kernel instructions of a context switch to functions, for
`make bench`: insncount profiles (profile=FILE) of the same ping-pong
workload unprofiled and profiled, each divided by its context switches.

  switch-attribution.py SYSTEM_MAP LABEL:SWITCHES:PROFILE...

The first run is the baseline.  Prints every function whose instructions
per switch differ from the baseline's by at least 0.5 in some run: its
figure in each run and, for the others, the difference, grouped into the
LWP low layer (XSAVE of the LWP state, the switch hook, the threshold
interrupt), the lwp PMU driver, perf core (by name) and the rest of the
kernel; then each group's sum over all its functions, and the total."""
import re
import sys

from kprofile import SystemMap

GROUPS = [
    ("LWP low layer", re.compile(r"^(lwp_|xsave_lwp|xrstor_lwp|xfeature_lwp_|__switch_to_xtra$"
                                 r"|.*sysvec_lwp_threshold)")),
    ("lwp PMU driver", re.compile(r"^(perf_lwp_|amd_lwp_pmu_)")),
    ("perf core", re.compile(r"^(__)?(perf_|ctx_|event_|task_ctx_|pmu_ctx_|visit_groups|merge_sched"
                             r"|group_sched|__pmu_ctx|find_get_pmu_context|put_pmu_ctx|get_ctx|put_ctx"
                             r"|x86_pmu_|rotate_ctx|__get_cpu_context|task_clock_|cpu_clock_)")),
    ("scheduler and the rest", re.compile(r"")),
]


def group_of(name):
    for g, (_, rx) in enumerate(GROUPS):
        if rx.match(name):
            return g
    return len(GROUPS) - 1


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    smap = SystemMap(sys.argv[1])
    runs = []
    for arg in sys.argv[2:]:
        label, switches, path = arg.split(":", 2)
        per = smap.profile(path)
        runs.append((label, {k: v / float(switches) for k, v in per.items()}))
    base = runs[0][1]
    funcs = set()
    for _, per in runs:
        funcs |= per.keys()
    width = 10
    head = "%-34s" % "instructions per switch" + "".join("%*s" % (width, l) for l, _ in runs)
    head += "".join("%*s" % (width + 2, "+" + l) for l, _ in runs[1:])
    print(head)
    sums = [[0.0] * len(runs) for _ in GROUPS]
    for g, (gname, _) in enumerate(GROUPS):
        rows = []
        for f in funcs:
            if group_of(f) != g:
                continue
            vals = [per.get(f, 0.0) for _, per in runs]
            for i, v in enumerate(vals):
                sums[g][i] += v
            if any(abs(v - vals[0]) >= 0.5 for v in vals[1:]):
                rows.append((f, vals))
        rows.sort(key=lambda r: (-max(abs(v - r[1][0]) for v in r[1][1:]), r[0]))
        print("-- %s" % gname)
        for f, vals in rows:
            print("  %-32s" % f + "".join("%*.1f" % (width, v) for v in vals) +
                  "".join("%+*.1f" % (width + 2, v - vals[0]) for v in vals[1:]))
        print("  %-32s" % ("(sum of the group)") + "".join("%*.1f" % (width, v) for v in sums[g]) +
              "".join("%+*.1f" % (width + 2, v - sums[g][0]) for v in sums[g][1:]))
    tot = [sum(s[i] for s in sums) for i in range(len(runs))]
    print("%-34s" % "kernel total" + "".join("%*.1f" % (width, v) for v in tot) +
          "".join("%+*.1f" % (width + 2, v - tot[0]) for v in tot[1:]))


main()
