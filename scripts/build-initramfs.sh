#!/usr/bin/env bash
# Build the guest initramfs: static busybox, Debian's perf and the kernel
# tree's perf (scripts/build-perf.sh, under $PERF_PREFIX) with their shared
# library closures, bash and objdump (perf's shell tests, perf annotate), the
# kselftests built from the kernel tree, and guest/.
#   build-initramfs.sh [plain|debug]   (the kernel whose UAPI headers to use)
# Output: $BUILD/initramfs.cpio.gz
. "$(dirname "$0")/lib.sh"

kout=$(kernel_out "${1:-plain}")
cpio_out=$INITRD
src=$BUILD/linux
root=$BUILD/initramfs.root
ksel=$BUILD/kselftests
KSELFTEST_TARGETS=${KSELFTEST_TARGETS:-perf_events x86}
need_cmd busybox perf cpio gzip rsync gcc bash objdump
[ -x "$BUILD/perf-install$PERF_PREFIX/bin/perf" ] ||
	die "no perf built from the kernel tree: run 'make perf'"

[ -f /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' ||
	die "/bin/busybox is not the static one: run 'make deps' (busybox-static)"

# copy_libs FILE: copy every shared library FILE needs into the root.
copy_libs() {
	local lib
	# mawk has no \s; ldd prints "name => path (addr)" or "path (addr)"
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# copy_elf FILE: copy FILE (same path) and its libraries.
copy_elf() {
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
	copy_libs "$1"
}

kselftests() {
	# the build folder is kept, so that an unchanged tree rebuilds nothing
	rm -rf "$ksel/install"
	mkdir -p "$ksel/build"
	# run in a subshell: the selftests' make must not see our make's flags
	env -u MAKEFLAGS -u MFLAGS make -s -C "$src/tools/testing/selftests" \
		TARGETS="$KSELFTEST_TARGETS" KHDR_INCLUDES="-isystem $kout/usr/include" \
		O="$ksel/build" INSTALL_PATH="$ksel/install" install >"$ksel/build.log" 2>&1 ||
		{ tail -40 "$ksel/build.log"; die "building the kselftests failed (log: $ksel/build.log)"; }
	# the selftests' make goes on past a target that fails to build
	for t in $KSELFTEST_TARGETS; do
		[ -d "$ksel/install/$t" ] ||
			{ grep -B2 -A8 -m3 'error' "$ksel/build.log"; die "building the kselftests of $t failed (log: $ksel/build.log)"; }
	done
	grep -E 'warning:' "$ksel/build.log" | sort -u | head -20 || true
}

assemble() {
	local f
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root,harness/bin,lib64}
	cp /bin/busybox "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$TOP/guest/init" "$root/init"
	echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	copy_elf /usr/bin/perf
	cp -a "$BUILD/perf-install/." "$root/"
	copy_libs "$root$PERF_PREFIX/bin/perf"
	# perf test's shell tests are bash scripts; perf annotate disassembles
	# with objdump
	copy_elf /bin/bash
	copy_elf /usr/bin/objdump
	# the kselftest runner needs GNU timeout (--foreground)
	copy_elf /usr/bin/timeout
	# the project's guest programs: guest/*.c, one program each
	for f in "$TOP"/guest/*.c; do
		[ -e "$f" ] || continue
		# a line "// harness-cflags: ..." in the source adds flags
		# shellcheck disable=SC2046
		gcc -O1 -g -fno-omit-frame-pointer -Wall -Werror \
			-isystem "$kout/usr/include" -o "$root/harness/bin/$(basename "$f" .c)" "$f" \
			$(sed -n 's|^// harness-cflags:||p' "$f")
		copy_libs "$root/harness/bin/$(basename "$f" .c)"
	done
	cp -r "$TOP/guest/suites" "$TOP/guest/lib" "$root/harness/"
	cp "$TOP/guest/demo.sh" "$TOP/guest/bench.sh" "$TOP/guest/kselftest-skip.txt" "$root/harness/"
	cp -a "$ksel/install" "$root/kselftests"
	for f in $(find "$root/kselftests" -type f -perm -u+x); do
		file "$f" | grep -q 'dynamically linked' || continue
		copy_libs "$f"
	done
	( cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --quiet --null -o -H newc --owner=0:0 ) | gzip -6 >"$cpio_out.tmp"
	mv "$cpio_out.tmp" "$cpio_out"
	echo "initramfs: $(stat -c %s "$cpio_out") bytes gzip, $(du -sb "$root" | cut -f1) bytes unpacked, $(find "$root" | wc -l) entries"
}

step "build kselftests ($KSELFTEST_TARGETS)" kselftests
step "assemble initramfs" assemble
