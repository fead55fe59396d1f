#!/usr/bin/env python3
"""Attribute an insncount profile (profile=FILE: "ADDRESS COUNT" lines) to
the kernel's functions with System.map.

  profile-syms.py SYSTEM_MAP PROFILE [DIVISOR [TOP]]

prints the TOP (default 10) functions by instructions, each also divided by
DIVISOR (e.g. the number of samples), then the total."""
import sys

from kprofile import SystemMap


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    per = SystemMap(sys.argv[1]).profile(sys.argv[2])
    div = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    for name, count in sorted(per.items(), key=lambda x: -x[1])[:top]:
        print("%-36s %12d %10.1f" % (name, count, count / div))
    total = sum(per.values())
    print("%-36s %12d %10.1f" % ("(all)", total, total / div))


main()
