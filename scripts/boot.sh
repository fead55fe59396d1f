#!/usr/bin/env bash
# Boot a kernel of the harness with its initramfs on its QEMU (make demo,
# make shell).
#   boot.sh plain|debug CPU [run-qemu.py options...]
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: boot.sh plain|debug CPU [run-qemu.py options...]}
cpu=${2:?usage: boot.sh plain|debug CPU [run-qemu.py options...]}
shift 2
run_guest "$(kernel_out "$variant")" "$cpu" "$@"
