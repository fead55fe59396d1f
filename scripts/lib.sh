# Common helpers for the harness scripts (sourced, not executed).
# shellcheck shell=bash

set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lwp-perf}

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "==> $*"
}

# step NAME CMD...: run CMD, then say how long it took.
step() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s.%N)
	note "$name"
	"$@" || rc=$?
	printf '==> %s: %s in %.1f s\n' "$name" \
		"$([ $rc -eq 0 ] && echo done || echo "FAILED (exit $rc)")" \
		"$(echo "$(date +%s.%N) - $t0" | bc)"
	return $rc
}

# Deterministic identity and dates for the generated base commits, so that
# the base commit id is the same on every machine.
base_git_env() {
	export GIT_AUTHOR_NAME="Debian base" GIT_AUTHOR_EMAIL="base@localhost"
	export GIT_COMMITTER_NAME="Debian base" GIT_COMMITTER_EMAIL="base@localhost"
	export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
}

# Identity used by git am / rebase in the work trees when the user has none.
tree_git_config() {
	local dir=$1
	git -C "$dir" config user.name >/dev/null 2>&1 ||
		git -C "$dir" config user.name "LWP developer"
	git -C "$dir" config user.email >/dev/null 2>&1 ||
		git -C "$dir" config user.email "lwp@localhost"
	git -C "$dir" config core.abbrev 12
	git -C "$dir" config am.keepcr false
	git -C "$dir" config gc.auto 0
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "'$c' is missing: run 'make deps' (installs the Debian packages the harness needs)"
	done
}

sha256_of() {
	sha256sum "$1" | cut -d' ' -f1
}

# check_sha256 FILE EXPECTED WHAT
check_sha256() {
	local got
	got=$(sha256_of "$1")
	[ "$got" = "$2" ] || die "$3: checksum mismatch for $1
  expected $2
  got      $got
Delete the file and retry; if the archive really serves new content, bump the pin in the Makefile."
}

# The built pieces every boot uses.
QEMU_BIN=$BUILD/qemu-build/qemu-system-x86_64
INITRD=$BUILD/initramfs.cpio.gz
# where the tree's perf lives in the guest (scripts/build-perf.sh)
PERF_PREFIX=/opt/perf

# kernel_out plain|debug: the build folder of that kernel (the Makefile's
# DEBUG=1 means debug).  The one place that maps a variant to a folder.
kernel_out() {
	case $1 in
	plain) echo "$BUILD/kernel" ;;
	debug) echo "$BUILD/kernel-debug" ;;
	base) echo "$BUILD/kernel-base" ;;
	*) die "unknown kernel variant '$1' (plain, debug or base)" ;;
	esac
}

# use_ccache: point ccache at the harness's cache; false when ccache is
# missing or NO_CCACHE=1, so that callers fall back to the plain compiler.
use_ccache() {
	command -v ccache >/dev/null 2>&1 && [ "${NO_CCACHE:-}" != 1 ] || return 1
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache} CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
}

# run_guest KBUILD CPU [run-qemu.py options...]: boot KBUILD's kernel with
# the harness initramfs on the harness's QEMU.
run_guest() {
	local k=$1 cpu=$2
	shift 2
	"$TOP/scripts/run-qemu.py" --qemu "$QEMU_BIN" --kernel "$k/arch/x86/boot/bzImage" \
		--initrd "$INITRD" --cpu "$cpu" "$@"
}
