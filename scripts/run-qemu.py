#!/usr/bin/env python3
"""Boot the test kernel under QEMU TCG and judge the run from the serial log.

Writes the timestamped serial log to --log and, with --results, one line per
test: "PASS|FAIL|SKIP<TAB>name<TAB>detail".  Exit status: 0 when the guest
reported success and the log is clean, 1 on a failure, 2 when the guest gave
no status (panic, hang, timeout).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

# Kernel messages that fail a run wherever they appear, each with the kind of
# report it starts, so that a failure says which checker spoke.  Order
# matters: the first match names the kind (a KASAN report starts with "BUG:",
# most lockdep reports with "WARNING:").
SPLATS = [
    ("KASAN", r"KASAN: "),
    ("UBSAN", r"UBSAN: "),
    ("lockdep", r"possible circular locking dependency|possible recursive locking"
                r"|inconsistent lock state|possible irq lock inversion|bad unlock balance"
                r"|held lock freed|lock held when returning to user space|lock held at task exit"
                r"|suspicious RCU usage|lockdep: |BUG: MAX_LOCK|INFO: lockdep is turned off"),
    ("atomic sleep", r"BUG: sleeping function called from invalid context|BUG: scheduling while atomic"),
    ("kmemleak", r"new suspected memory leak"),
    ("SLUB", r"BUG [\w.-]+ \(.*\): "),
    ("BUG", r"BUG: |kernel BUG at"),
    ("Oops", r"Oops: |general protection fault, "),
    ("WARN", r"WARNING: "),
    ("panic", r"Kernel panic"),
    ("MSR", r"unchecked MSR access"),
    ("RCU stall", r"rcu: INFO: .* detected stall|detected stalls on CPUs"),
    ("hung task", r"INFO: task .* blocked for more than"),
    ("lockup", r"soft lockup|hard LOCKUP"),
    # a trace with no report line above it (the reports carry one too)
    ("trace", r"Call Trace:"),
]
SPLAT_RES = [(kind, re.compile(rx)) for kind, rx in SPLATS]


def splat_kind(msg):
    """The kind of report a kernel message starts, or None."""
    for kind, rx in SPLAT_RES:
        if rx.search(msg):
            return kind
    return None
# a kernel console line (PRINTK_TIME), possibly after user output on that line
KMSG_RE = re.compile(r"\[\s*\d+\.\d{6}\] (.*)$")
TAP_RE = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*(?:- )?(.*)$")
SUITE_RE = re.compile(r"^HARNESS: suite (\S+) (begin|end)(?: rc=(\d+) seconds=(\S+))?")
EXIT_RE = re.compile(r"^HARNESS: exit status=(\d+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--cpu", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--results")
    ap.add_argument("--label", default="")
    ap.add_argument("--mode", default="check", choices=["check", "demo", "shell", "bench", "fuzz"])
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--smp", default="2")
    ap.add_argument("--mem", default="1G")
    ap.add_argument("--append", default="")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--qemu-arg", action="append", default=[],
                    help="extra QEMU argument (repeat for each word)")
    ap.add_argument("--replay", metavar="SERIAL_LOG",
                    help="judge this raw serial output instead of booting (harness self-test)")
    ap.add_argument("--debug-checks", action="store_true",
                    help="a debug kernel: the guest must report a kmemleak scan and lockdep still on")
    ap.add_argument("--quiet", action="store_true",
                    help="print only markers, TAP results and problems")
    a = ap.parse_args()

    append = ("console=ttyS0 earlyprintk=serial,ttyS0 panic=-1 oops=panic "
              "loglevel=6 harness.mode=%s %s" % (a.mode, a.append)).strip()
    # firmware from Debian's seabios, qemu-system-data and ipxe-qemu: the dfsg
    # source has no blobs, and a binary run from its build folder does not
    # find a configured --firmwarepath
    fw = []
    for d in ("/usr/share/seabios", "/usr/share/qemu", "/usr/lib/ipxe/qemu"):
        fw += ["-L", d]
    cmd = [a.qemu] + fw + a.qemu_arg + ["-accel", a.accel, "-cpu", a.cpu, "-smp", a.smp, "-m", a.mem,
           "-no-reboot", "-display", "none", "-vga", "none", "-net", "none",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-kernel", a.kernel, "-initrd", a.initrd, "-append", append]
    if a.mode == "shell":
        cmd += ["-serial", "mon:stdio"]
        print("booting an interactive guest; Ctrl-A x quits QEMU", flush=True)
        os.execvp(cmd[0], cmd)
    cmd += ["-monitor", "none", "-serial", "stdio"]

    label = a.label or a.cpu
    t0 = time.time()
    if a.replay:
        cmd = ["cat", a.replay]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = threading.Event()

    def watchdog():
        if proc.poll() is None:
            timed_out.set()
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(a.timeout, watchdog)
    timer.start()

    results = []        # (status, name, detail)
    splats = []
    suite = None
    marker_status = None
    shell_up = None
    suite_rcs = {}
    kmemleak_seen = False
    debug_locks = None
    last_comment = ""
    comments = []       # the "#" lines since the last test line
    with open(a.log, "w") as log:
        log.write("# %s\n" % " ".join(cmd))
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            now = time.time() - t0
            log.write("[%8.2f] %s\n" % (now, line))
            log.flush()
            show = not a.quiet
            text = line.replace("\r", "")
            km = KMSG_RE.search(text)
            if km:
                kind = splat_kind(km.group(1))
                if kind:
                    splats.append((kind, text))
                    show = True
            if text.startswith("HARNESS: "):
                show = True
                m = SUITE_RE.match(text)
                if m:
                    suite = m.group(1) if m.group(2) == "begin" else None
                    comments = []
                    if m.group(2) == "end":
                        suite_rcs[m.group(1)] = int(m.group(3))
                m = EXIT_RE.match(text)
                if m:
                    marker_status = int(m.group(1))
                m = re.match(r"HARNESS: debug-checkers debug_locks=(\S+)", text)
                if m:
                    debug_locks = m.group(1)
                if text.startswith("HARNESS: kmemleak: "):
                    kmemleak_seen = True
                    if not re.match(r"HARNESS: kmemleak: \d+ ", text):
                        results.append(("FAIL", "%s: kmemleak finds no leak" % label,
                                        text[len("HARNESS: "):]))
                m = re.match(r"HARNESS: kmemleak: (\d+)", text)
                if m:
                    n = int(m.group(1))
                    results.append(("FAIL" if n else "PASS", "%s: kmemleak finds no leak" % label,
                                    "%d unreferenced objects" % n))
                    if n:
                        splats.append(("kmemleak", text))
                if text.startswith("HARNESS: shell-up") and shell_up is None:
                    shell_up = now
            if text.startswith("#") and text.strip("# \t"):
                last_comment = text.lstrip("# \t")
                comments = (comments + [last_comment])[-6:]
            m = TAP_RE.match(text)
            if m and suite:
                show = True
                detail = m.group(3)
                name = detail
                status = "PASS" if m.group(1) == "ok" else "FAIL"
                sk = re.search(r"#\s*SKIP\b:?\s*(.*)$", detail, re.I)
                if sk and status == "PASS":
                    status = "SKIP"
                    name = detail[:sk.start()].strip()
                    # the kselftest runner drops the reason; the test's
                    # own last line usually says it
                    detail = sk.group(1).strip() or last_comment or "no reason given"
                elif "#" in detail:
                    name = detail.split("#")[0].strip()
                if status == "FAIL" and comments and detail == name:
                    # what the test printed before failing, for the
                    # summary: often all a CI log keeps of the failure
                    detail = " | ".join(comments)[-800:]
                results.append((status, "%s: %s: %s" % (label, suite, name), detail))
                last_comment = ""
                comments = []
            if show:
                print(line, flush=True)
    rc = proc.wait()
    timer.cancel()
    took = time.time() - t0

    # The guest writes 0x20 | status to isa-debug-exit, and QEMU exits with
    # (value << 1) | 1; QEMU's own errors exit with 1.
    status = None
    if rc > 0 and rc & 1 and (rc >> 1) & 0x20 and not timed_out.is_set():
        status = (rc >> 1) & 0x1f
    elif marker_status is not None:
        status = marker_status

    if a.mode == "check":
        for s, r in suite_rcs.items():
            if r != 0 and not any(x[0] == "FAIL" and (": %s: " % s) in x[1] for x in results):
                results.append(("FAIL", "%s: %s" % (label, s), "suite exited %d without a failing test line" % r))
    if a.debug_checks and status is not None:
        # a debug kernel whose checkers went quiet must not pass as clean
        if not kmemleak_seen:
            results.append(("FAIL", "%s: kmemleak finds no leak" % label,
                            "the guest reported no kmemleak scan (CONFIG_DEBUG_KMEMLEAK off?)"))
        results.append(("PASS" if debug_locks == "1" else "FAIL", "%s: lockdep still on at the end" % label,
                        "debug_locks=%s in /proc/lockdep_stats" % debug_locks if debug_locks
                        else "the guest reported no lockdep state (CONFIG_PROVE_LOCKING off?)"))
    if timed_out.is_set():
        results.append(("FAIL", "%s: guest finished" % label,
                        "killed after %.0f s timeout (hung guest?); last suite: %s" % (a.timeout, suite)))
    elif status is None:
        results.append(("FAIL", "%s: guest finished" % label,
                        "no exit status (kernel panic or crash?), see %s" % a.log))
    else:
        results.append(("PASS" if status == 0 else "FAIL", "%s: guest finished" % label,
                        "status %d" % status))
    if splats:
        # which checkers spoke, in order of first appearance, then the first
        # line of each kind
        kinds = []
        for k, _ in splats:
            if k not in kinds:
                kinds.append(k)
        if len(kinds) > 1 and "trace" in kinds:
            kinds.remove("trace")
        first = [next(t for k2, t in splats if k2 == k) for k in kinds]
        detail = "%s: %s" % (", ".join("%s x%d" % (k, sum(1 for k2, _ in splats if k2 == k))
                                     for k in kinds), "; ".join(first[:5]))
        print("host: %s: kernel reports: %s" % (label, ", ".join(kinds)), flush=True)
    else:
        detail = "no BUG/WARNING/KASAN/UBSAN/lockdep/kmemleak/MSR/RCU reports"
    results.append(("FAIL" if splats else "PASS", "%s: kernel log clean" % label, detail))
    for s, n, d in results:
        if s == "FAIL":
            print("FAIL: %s: %s" % (n, d), flush=True)
    print("host: %s: qemu rc=%d status=%s boot-to-shell=%s total=%.1fs log=%s" %
          (label, rc, status, "%.1fs" % shell_up if shell_up else "n/a", took, a.log), flush=True)
    if a.results:
        with open(a.results, "a") as f:
            for s, n, d in results:
                f.write("%s\t%s\t%s\n" % (s, n.replace("\t", " "), d.replace("\t", " ")))
    if timed_out.is_set() or status is None:
        return 2
    return 0 if all(r[0] != "FAIL" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
