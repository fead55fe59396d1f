#!/usr/bin/env bash
# Build qemu-system-x86_64 (TCG only, plugins on, everything optional off)
# from the work tree $BUILD/qemu into $BUILD/qemu-build.
. "$(dirname "$0")/lib.sh"

src=$BUILD/qemu
out=$BUILD/qemu-build
[ -f "$src/VERSION" ] || die "no QEMU tree at $src: run 'make qemu-tree'"
need_cmd ninja meson pkg-config python3

cfg=(--target-list=x86_64-softmmu --without-default-features
     --enable-tcg --enable-plugins --disable-docs --disable-werror
     --disable-install-blobs
     --firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu)

if use_ccache; then
	export PATH=/usr/lib/ccache:$PATH
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
	step "configure QEMU" configure
	echo "$want" >"$out/.harness-config"
fi
step "build qemu-system-x86_64" ninja -C "$out" qemu-system-x86_64
"$out/qemu-system-x86_64" --version | head -1
