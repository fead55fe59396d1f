#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A terminal for perf's TUI in the guest: run a command on a pseudo-terminal
of COLS x ROWS, emulate the screen with pyte (a VT100/xterm emulator), type
keys, and print the screen.  The guest kernel has no unix sockets, so tmux
cannot run there.

  tui.py [-s COLS:ROWS] [-o OUTDIR] -- CMD ARGS... < SCRIPT

SCRIPT, one step per line:
  wait TEXT [SECONDS]   until TEXT is on the screen (default 60 s); fails if not
  sleep SECONDS         let the program run
  keys KEY...           type keys: a letter or word as is, ENTER, ESC, LEFT,
                        RIGHT, UP, DOWN, TAB, SPACE
  dump NAME             write the screen to OUTDIR/NAME.screen
  exit [SECONDS]        wait for the program to end (default 30 s) and print
                        its exit status; fails if it does not end
Prints "tui: ..." lines; exits 0 when every step worked.
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

import pyte

KEYS = {"ENTER": "\r", "ESC": "\x1b", "LEFT": "\x1b[D", "RIGHT": "\x1b[C",
        "UP": "\x1b[A", "DOWN": "\x1b[B", "TAB": "\t", "SPACE": " "}


def main():
    args = sys.argv[1:]
    cols, rows, outdir = 160, 40, "."
    while args and args[0] != "--":
        if args[0] == "-s":
            cols, rows = (int(x) for x in args[1].split(":"))
        elif args[0] == "-o":
            outdir = args[1]
        args = args[2:]
    cmd = args[1:]
    screen = pyte.Screen(cols, rows)
    stream = pyte.ByteStream(screen)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ["COLUMNS"], os.environ["LINES"] = str(cols), str(rows)
        os.execvp(cmd[0], cmd)
    # the child's terminal size
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    status = [None]

    def pump(seconds):
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return
            r, _, _ = select.select([fd], [], [], min(left, 0.2))
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    if status[0] is None:
                        status[0] = os.waitpid(pid, 0)[1]
                    return
                stream.feed(data)

    def text():
        return "\n".join(line.rstrip() for line in screen.display)

    ok = True
    for line in sys.stdin:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        op = words[0]
        if op == "wait":
            seconds = 60.0
            target = line.split(None, 1)[1].rstrip("\n")
            if target.rsplit(" ", 1)[-1].replace(".", "").isdigit() and " " in target:
                target, s = target.rsplit(" ", 1)
                seconds = float(s)
            end = time.time() + seconds
            while target not in text() and time.time() < end and status[0] is None:
                pump(0.5)
            if target in text():
                print("tui: saw '%s'" % target)
            else:
                print("tui: FAILED: no '%s' on the screen after %.0f s; the screen:" % (target, seconds))
                print(text())
                ok = False
                break
        elif op == "sleep":
            pump(float(words[1]))
        elif op == "keys":
            for k in words[1:]:
                os.write(fd, KEYS.get(k, k).encode())
                pump(0.3)
        elif op == "dump":
            pump(0.5)
            with open(os.path.join(outdir, words[1] + ".screen"), "w") as f:
                f.write(text() + "\n")
            print("tui: screen in %s.screen" % words[1])
        elif op == "exit":
            seconds = float(words[1]) if len(words) > 1 else 30.0
            end = time.time() + seconds
            while status[0] is None and time.time() < end:
                pump(0.5)
                if status[0] is None:
                    p, st = os.waitpid(pid, os.WNOHANG)
                    if p:
                        status[0] = st
            if status[0] is None:
                print("tui: FAILED: the program did not end within %.0f s" % seconds)
                ok = False
                break
            print("tui: exit status %d" % os.waitstatus_to_exitcode(status[0]))
    if status[0] is None:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    sys.exit(0 if ok else 1)


main()
