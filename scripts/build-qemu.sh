#!/usr/bin/env bash
# Build qemu-system-x86_64 (TCG only, plugins on, everything optional off)
# from the work tree $BUILD/qemu into $BUILD/qemu-build.
#   build-qemu.sh stock: the same build of the tree's base, without the
#   series, from $BUILD/stock/qemu into $BUILD/stock/qemu-build (make bench
#   compares the two).  The folders are named as the series' are, so that
#   ccache, given $BUILD/stock as its base, reuses the objects of the files
#   the series does not touch.
. "$(dirname "$0")/lib.sh"

src=$BUILD/qemu
out=$BUILD/qemu-build
what="qemu-system-x86_64"
need_cmd ninja meson pkg-config python3
[ -f "$src/VERSION" ] || die "no QEMU tree at $src: run 'make qemu-tree'"
if [ "${1:-}" = stock ]; then
	base=$(git -C "$src" rev-parse base) || die "$src has no 'base' tag: run 'make qemu-tree'"
	src=$BUILD/stock/qemu
	out=$BUILD/stock/qemu-build
	what="qemu-system-x86_64 of the base (stock)"
	if [ "$(cat "$src/.harness-base" 2>/dev/null)" != "$base" ]; then
		rm -rf "$BUILD/stock"
		mkdir -p "$src"
		git -C "$BUILD/qemu" archive base | tar -x -C "$src"
		echo "$base" >"$src/.harness-base"
	fi
fi

cfg=(--target-list=x86_64-softmmu --without-default-features
     --enable-tcg --enable-plugins --disable-docs --disable-werror
     --disable-install-blobs
     --firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu)

if use_ccache; then
	export PATH=/usr/lib/ccache:$PATH
	[ "${1:-}" = stock ] && export CCACHE_BASEDIR=$BUILD/stock
fi
# Debian's python3, not a pyenv one: meson and QEMU's scripts need its modules
export PATH=/usr/bin:$PATH

configure() {
	rm -rf "$out"
	mkdir -p "$out"
	(cd "$out" && "$src/configure" "${cfg[@]}" >configure.log 2>&1) ||
		{ tail -30 "$out/configure.log"; die "QEMU configure failed (log: $out/configure.log)"; }
}

want=$(printf '%s\n' "${cfg[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/build.ninja" ] || [ "$(cat "$out/.harness-config" 2>/dev/null)" != "$want" ]; then
	step "configure $what" configure
	echo "$want" >"$out/.harness-config"
fi
step "build $what" ninja -C "$out" qemu-system-x86_64
"$out/qemu-system-x86_64" --version | head -1
