#!/usr/bin/env bash
# make check-series: the slow checks a kernel series must pass before it is
# posted, kept out of make check for time:
#   - bisectability: every patch of patches/linux builds (incrementally, in
#     a worktree of its own, build/linux-bisect, O=build/kernel-bisect);
#   - configurations without the feature build: CONFIG_CPU_SUP_AMD=n
#     (build/kernel-noamd) and CONFIG_PERF_EVENTS=n (build/kernel-noperf, as
#     user-mode Linux: x86 itself always selects PERF_EVENTS).
# Prints "N passed, N failed" like make check.
. "$(dirname "$0")/lib.sh"

src=$BUILD/linux
wt=$BUILD/linux-bisect
pass=0
fail=0
"$TOP/scripts/series.sh" sync linux

kbuild() {	# kbuild SRC OUT [config fragment lines...]
	local s=$1 o=$2 line
	shift 2
	mkdir -p "$o"
	local km=(make -C "$s" O="$o" LOCALVERSION= -j"$(nproc)" -s)
	if use_ccache; then
		km+=(CC="ccache gcc")
	fi
	if [ ! -f "$o/.config" ]; then
		"${km[@]}" tinyconfig
		{ cat "$TOP/configs/harness.config"; printf '%s\n' "$@"; } >"$o/extra.config"
		"$s/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$o/extra.config" >/dev/null
		"${km[@]}" olddefconfig
		for line in "$@"; do
			grep -qxF "$line" "$o/.config" || { echo "config: '$line' did not apply"; return 1; }
		done
	fi
	# a later patch may add Kconfig symbols: take their defaults rather
	# than let kconfig prompt for them
	"${km[@]}" olddefconfig
	"${km[@]}" bzImage
}

result() {	# result RC NAME
	if [ "$1" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok: $2"
	else
		fail=$((fail + 1))
		echo "FAILED: $2"
	fi
}

if [ ! -e "$wt/.git" ]; then
	git -C "$src" worktree add -q --detach "$wt" base
fi
for c in $(git -C "$src" rev-list --reverse base..HEAD); do
	subj=$(git -C "$src" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	rc=0
	step "build after: $subj" kbuild "$wt" "$BUILD/kernel-bisect" || rc=$?
	result $rc "builds after '$subj'"
done
rc=0
# CPU_SUP_AMD can only be switched off under PROCESSOR_SELECT, and Hygon
# selects it
step "build with CONFIG_CPU_SUP_AMD=n" kbuild "$src" "$BUILD/kernel-noamd" \
	"CONFIG_PROCESSOR_SELECT=y" "# CONFIG_CPU_SUP_HYGON is not set" \
	"# CONFIG_CPU_SUP_AMD is not set" || rc=$?
result $rc "builds with CONFIG_CPU_SUP_AMD=n"
# x86 selects PERF_EVENTS (arch/x86/Kconfig), so no x86 kernel lacks it; the
# generic code's !PERF_EVENTS side (stubs in the headers the series touches,
# hooks in fork/exec/mm) is built as 64-bit user-mode Linux, which has no
# perf events and needs no cross compiler.
umbuild() {
	local o=$BUILD/kernel-noperf
	local km=(make -C "$src" O="$o" ARCH=um -j"$(nproc)" -s)
	mkdir -p "$o"
	if use_ccache; then
		km+=(CC="ccache gcc")
	fi
	if [ ! -f "$o/.config" ]; then
		"${km[@]}" tinyconfig
		echo "CONFIG_64BIT=y" >"$o/extra.config"
		"$src/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$o/extra.config" >/dev/null
		"${km[@]}" olddefconfig
	fi
	! grep -q '^CONFIG_PERF_EVENTS=y' "$o/.config" || { echo "UML has PERF_EVENTS?"; return 1; }
	"${km[@]}" linux
}
rc=0
step "build with CONFIG_PERF_EVENTS=n (ARCH=um)" umbuild || rc=$?
result $rc "builds with CONFIG_PERF_EVENTS=n (64-bit UML tinyconfig)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
