#!/bin/sh
# make bench: the measured guest workloads (the host's insncount plugin
# counts instructions between the markers).
cd /tmp
pingpong "${1:-20000}"
