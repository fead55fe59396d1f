#!/usr/bin/env bash
# Build the perf tool of the kernel work tree ($BUILD/linux/tools/perf) out
# of tree, and install it for the guest under $PERF_PREFIX, beside Debian's
# /usr/bin/perf: the perf a kernel developer reviewing the series would use.
#   build-perf.sh
# Output: $BUILD/perf (objects, kept: an unchanged tree recompiles nothing,
# but perf relinks, its version string carries the tree's git hash) and
# $BUILD/perf-install$PERF_PREFIX/{bin/perf,libexec/perf-core/tests/...}.
. "$(dirname "$0")/lib.sh"

src=$BUILD/linux/tools/perf
out=$BUILD/perf
dest=$BUILD/perf-install
[ -f "$src/Makefile.perf" ] || die "no kernel tree at $BUILD/linux: run 'make tree'"
need_cmd gcc make flex bison
mkdir -p "$out"

# The features Debian's packages give (make deps installs them).  Left out:
# perl scripting, the JVMTI agent, the BPF skeletons (clang, bpftool) and
# libLLVM (symbol resolution and disassembly: it would add 170 MB of shared
# libraries to the guest; perf falls back to libdw and objdump).  Debian's
# python3, not whatever python3 comes first in PATH.
pmake=(make -C "$src" O="$out" -j"$(nproc)" prefix="$PERF_PREFIX"
	PYTHON=/usr/bin/python3 NO_LIBPERL=1 NO_JVMTI=1 BUILD_BPF_SKEL=0
	NO_LIBLLVM=1 NO_SHELLCHECK=1 WERROR=0)
if use_ccache; then
	pmake+=(CC="ccache gcc")
fi

build_install() {
	rm -rf "$dest"
	# install-bin builds what it installs; run in a subshell: perf's make
	# must not see our make's flags
	env -u MAKEFLAGS -u MFLAGS "${pmake[@]}" DESTDIR="$dest" install-bin >"$out/build.log" 2>&1 ||
		{ tail -40 "$out/build.log"; die "building perf failed (log: $out/build.log)"; }
	# the features perf found; a missing wanted one is an error, not a
	# quietly smaller perf
	local f missing=()
	# (feature "dwarf" is libdw)
	for f in libelf dwarf libtraceevent libslang zlib libzstd libcap libnuma libpython; do
		grep -qx "feature-$f=1" "$out/FEATURE-DUMP" || missing+=("$f")
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "perf was built without ${missing[*]}: run 'make deps' (log: $out/build.log)"
	# the python binding where perf test's "'import perf' in python" looks
	# for it (a distribution installs it into python's site-packages); perf
	# is not stripped: perf test's shell tests look up symbols in it
	cp "$out"/python/perf*.so "$dest$PERF_PREFIX/libexec/perf-core/scripts/python/"
	"$dest$PERF_PREFIX/bin/perf" version
}

step "build perf (tools/perf of the kernel tree) and install it under $PERF_PREFIX" build_install
