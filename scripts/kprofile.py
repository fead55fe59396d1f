"""An insncount profile (profile=FILE: "ADDRESS COUNT" lines, the kernel
instructions executed at each address) attributed to the kernel's functions
with System.map; for scripts/profile-syms.py and scripts/switch-attribution.py."""
import bisect
import re

# the suffixes of GCC's clones: their instructions count for the function
CLONE = re.compile(r"(\.(isra|constprop|part|cold)\.\d+)+$")


class SystemMap:
    def __init__(self, path):
        syms = []
        with open(path) as f:
            for line in f:
                addr, kind, name = line.split()[:3]
                if kind in "tTwW":
                    syms.append((int(addr, 16), CLONE.sub("", name)))
        syms.sort()
        self.starts = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def function(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        return self.names[i] if i >= 0 else "?"

    def profile(self, path):
        """{function: instructions} of an insncount profile"""
        per = {}
        with open(path) as f:
            for line in f:
                addr, count = line.split()
                name = self.function(int(addr, 16))
                per[name] = per.get(name, 0) + int(count)
        return per
