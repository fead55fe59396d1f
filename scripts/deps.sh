#!/usr/bin/env bash
# Install every Debian package the harness needs (one list), if missing.
#   deps.sh          install what is missing
#   deps.sh --check  exit 1 if something is missing
. "$(dirname "$0")/lib.sh"

PKGS=(
	# kernel build
	gcc make bc bison flex perl libelf-dev libssl-dev cpio rsync xz-utils
	# bases from Debian's archive, work trees
	dpkg-dev git patch
	# QEMU build (TCG x86_64 system emulator with plugins)
	meson ninja-build pkg-config python3 libglib2.0-dev libpixman-1-dev
	zlib1g-dev libfdt-dev
	# QEMU firmware (the dfsg source carries no blobs)
	seabios ipxe-qemu qemu-system-data
	# guest: static busybox, the perf tool; file(1) to sort binaries;
	# objdump (perf annotate)
	busybox-static linux-perf file binutils
	# the kernel tree's perf (tools/perf) with the features Debian's
	# perf has, less perl, libunwind, babeltrace and libLLVM
	libdw-dev libtraceevent-dev libslang2-dev libzstd-dev libcap-dev
	libnuma-dev python3-dev python3-setuptools zlib1g-dev
	# perf test's shell tests in the guest: GNU tools beside busybox
	# (build-initramfs.sh copies them), python3 (above)
	coreutils grep sed findutils diffutils mawk util-linux
	# perf's TUI in the guest: a terminal emulator (guest/tui.py)
	python3-pyte ncurses-base
	# checks: sparse, codespell and checkpatch's SPDX check
	sparse codespell python3-ply python3-git
	# 32-bit (i386) programs: the x86 kselftests' _32 variants and the
	# compat tests of the lwp PMU
	gcc-multilib
	# make check-series: the Sphinx build of the documentation
	python3-sphinx
	# faster rebuilds
	ccache
	# make fuzz: the system call fuzzer
	trinity
	# make bench: the emulator's host instructions
	valgrind
)

installed=$( (dpkg-query -W -f='${Package} ${Status}\n' "${PKGS[@]}" 2>/dev/null || true) |
	awk '/ install ok installed$/ { print $1 }')
missing=()
for p in "${PKGS[@]}"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "${1:-}" = --check ] && { echo "missing Debian packages: ${missing[*]}"; exit 1; }
[ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${missing[*]}
run 'make deps' as root (or: sudo apt-get install ${missing[*]})"
note "installing ${missing[*]}"
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "apt-get update failed"
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install failed for: ${missing[*]}"
note "installed ${#missing[@]} packages in $(($(date +%s) - t0)) s"
