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
