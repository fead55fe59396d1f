#!/usr/bin/env bash
# make check-series: the slow checks a kernel series must pass before it is
# posted, kept out of make check for time:
#   - bisectability: every patch of patches/linux builds (incrementally, in
#     a worktree of its own, build/linux-bisect, O=build/kernel-bisect);
#   - configurations without the feature build: CONFIG_CPU_SUP_AMD=n
#     (build/kernel-noamd) and CONFIG_PERF_EVENTS=n (build/kernel-noperf, as
#     user-mode Linux: x86 itself always selects PERF_EVENTS);
#   - the documentation: scripts/kernel-doc -none -Wall says nothing of the
#     C files the series adds and no more of those it changes than of the
#     base's; the Sphinx build of Documentation/arch/x86 (htmldocs,
#     SPHINXDIRS) warns of nothing the base's does not.
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

# kernel-doc's complaints of the series' C files, less the base's
kdoc() {
	local f out=0 n b
	git -C "$wt" checkout -q --detach base
	for f in $(git -C "$src" diff --name-only base HEAD -- '*.c' '*.h' | grep -v '^tools/'); do
		n=$(cd "$src" && perl scripts/kernel-doc -none -Wall "$f" 2>&1 | wc -l)
		b=0
		if [ -e "$wt/$f" ]; then
			b=$(cd "$wt" && perl scripts/kernel-doc -none -Wall "$f" 2>&1 | wc -l)
		fi
		if [ "$n" -gt "$b" ]; then
			echo "kernel-doc: $f: $n warnings, the base $b:"
			(cd "$src" && perl scripts/kernel-doc -none -Wall "$f" 2>&1)
			out=1
		fi
	done
	return $out
}
rc=0
step "kernel-doc -none -Wall on the files the series touches" kdoc || rc=$?
result $rc "kernel-doc is clean on the series' C files"

# Sphinx warnings of Documentation/arch/x86, with the tree's path cut off
sphinx_warnings() {	# sphinx_warnings TREE OUT
	make -C "$1" O="$2" SPHINXDIRS=arch/x86 htmldocs 2>&1 |
		grep -E 'WARNING|ERROR' | grep -v 'dot(1) not found' |
		sed "s|$1/||" | sort -u
}
htmldocs() {
	local new
	# from scratch: Sphinx repeats no warning of a page it does not rebuild
	rm -rf "$BUILD/docs-base" "$BUILD/docs"
	sphinx_warnings "$wt" "$BUILD/docs-base" >"$BUILD/docs-base.warnings"
	sphinx_warnings "$src" "$BUILD/docs" >"$BUILD/docs.warnings"
	new=$(comm -13 "$BUILD/docs-base.warnings" "$BUILD/docs.warnings")
	[ -e "$BUILD/docs/Documentation/output/arch/x86/lwp.html" ] ||
		{ echo "htmldocs: no lwp.html"; return 1; }
	[ -z "$new" ] || { echo "htmldocs: new warnings:"; echo "$new"; return 1; }
}
rc=0
step "htmldocs (SPHINXDIRS=arch/x86), the series against the base" htmldocs || rc=$?
result $rc "Documentation/arch/x86 builds with Sphinx with no new warning"
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
