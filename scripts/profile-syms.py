#!/usr/bin/env python3
"""Attribute an insncount profile (profile=FILE: "ADDRESS COUNT" lines) to
the kernel's functions with System.map.

  profile-syms.py SYSTEM_MAP PROFILE [DIVISOR [TOP]]

prints the TOP (default 10) functions by instructions, each also divided by
DIVISOR (e.g. the number of samples), then the total."""
import bisect
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    syms = []
    with open(sys.argv[1]) as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if kind in "tTwW":
                syms.append((int(addr, 16), name))
    syms.sort()
    starts = [a for a, _ in syms]
    div = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    per = {}
    with open(sys.argv[2]) as f:
        for line in f:
            addr, count = line.split()
            i = bisect.bisect_right(starts, int(addr, 16)) - 1
            name = syms[i][1] if i >= 0 else "?"
            per[name] = per.get(name, 0) + int(count)
    for name, count in sorted(per.items(), key=lambda x: -x[1])[:top]:
        print("%-36s %12d %10.1f" % (name, count, count / div))
    total = sum(per.values())
    print("%-36s %12d %10.1f" % ("(all)", total, total / div))


main()
