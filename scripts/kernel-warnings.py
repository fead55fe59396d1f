#!/usr/bin/env python3
"""No new W=1 or sparse warnings in the C files the kernel series touches.

Rebuilds each touched .c file of the work tree with W=1 and sparse (C=2) and
fails on a warning that points at a line the series added or changed;
warnings on untouched lines of a file are the base's and only reported.
    kernel-warnings.py SRC OUT
"""
import os
import re
import subprocess
import sys


def added_lines(src, path):
    out = subprocess.run(["git", "-C", src, "diff", "-U0", "base..HEAD", "--", path],
                         capture_output=True, text=True, check=True).stdout
    lines = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", out, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


def main():
    src, out = sys.argv[1], sys.argv[2]
    files = subprocess.run(["git", "-C", src, "diff", "--name-only", "--diff-filter=AM",
                            "base..HEAD", "--", "*.c"],
                           capture_output=True, text=True, check=True).stdout.split()
    if not files:
        print("SKIP: the series touches no .c file")
        return 0
    new = 0
    for f in files:
        obj = f[:-2] + ".o"
        if not os.path.exists(os.path.join(out, obj)):
            print("%s: not built in this configuration" % f)
            continue
        r = subprocess.run(["make", "-s", "-C", src, "O=" + out, "LOCALVERSION=", "W=1",
                            "C=2", obj], capture_output=True, text=True)
        text = r.stdout + r.stderr
        if r.returncode:
            print(text[-3000:])
            print("%s: W=1/sparse build failed" % f)
            return 1
        mine = added_lines(src, f)
        old = fnew = 0
        for m in re.finditer(r"^(\S*?)%s:(\d+):(?:\d+:)? (warning|error): (.*)$" % re.escape(f),
                             text, re.M):
            if int(m.group(2)) in mine:
                print("NEW: %s:%s: %s: %s" % (f, m.group(2), m.group(3), m.group(4)))
                fnew += 1
            else:
                old += 1
        print("%s: %d new warnings, %d on lines the series did not touch" % (f, fnew, old))
        new += fnew
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
