#!/bin/sh
# make bench: the measured guest workloads.  "bench.sh ROUNDS": the pipe
# ping-pong (the host's insncount plugin counts instructions between its
# markers); "bench.sh speed": the emulator's speed with LWP off and on.
cd /tmp
case "$1" in
speed) lwp-speed ;;
*) pingpong "${1:-20000}" ;;
esac
