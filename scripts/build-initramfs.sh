#!/usr/bin/env bash
# Build the guest initramfs: static busybox, Debian's perf and the kernel
# tree's perf (scripts/build-perf.sh, under $PERF_PREFIX) with their shared
# library closures, bash, objdump, GNU tools and python3 (perf test's shell
# tests, perf annotate), the kselftests built from the kernel tree, and
# guest/.
#   build-initramfs.sh [plain|debug]   (the kernel whose UAPI headers to use)
# Output: $BUILD/initramfs.cpio.gz
. "$(dirname "$0")/lib.sh"

kout=$(kernel_out "${1:-plain}")
cpio_out=$INITRD
src=$BUILD/linux
root=$BUILD/initramfs.root
ksel=$BUILD/kselftests
KSELFTEST_TARGETS=${KSELFTEST_TARGETS:-perf_events x86}
[ -d /usr/lib/python3/dist-packages/pyte ] ||
	die "python3-pyte is missing: run 'make deps'"
need_cmd busybox perf cpio gzip rsync gcc bash objdump readelf dpkg /usr/bin/python3
[ -x "$BUILD/perf-install$PERF_PREFIX/bin/perf" ] ||
	die "no perf built from the kernel tree: run 'make perf'"

[ -f /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' ||
	die "/bin/busybox is not the static one: run 'make deps' (busybox-static)"

# copy_libs FILE: copy every shared library FILE needs into the root.
copy_libs() {
	local lib
	if file -L "$1" | grep -q 'ELF 32-bit'; then
		copy_libs32 "$1"
		return
	fi
	# mawk has no \s; ldd prints "name => path (addr)" or "path (addr)"
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# copy_libs32 FILE: the same for a 32-bit (i386) FILE.  ldd runs FILE's
# loader, which a host without ia32 emulation cannot: follow the ELF's
# interpreter and NEEDED entries instead, in the multilib directories that
# Debian's i386 loader searches (gcc-multilib).
copy_libs32() {
	local lib name dir
	lib=$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	for name in ${lib:+"$lib"} $(objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }'); do
		case "$name" in
		/*) lib=$name ;;
		*)
			lib=
			for dir in /lib32 /usr/lib32; do
				[ -e "$dir/$name" ] && { lib=$dir/$name; break; }
			done
			[ -n "$lib" ] || die "$1 needs $name, which is not in /lib32 or /usr/lib32: run 'make deps' (gcc-multilib)"
			;;
		esac
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
		copy_libs32 "$lib"
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

# perf test's shell tests are written for a distribution's userland, not
# busybox's applets (mktemp with 5 X's, tail --pid, taskset --cpu-list,
# grep -P, ...; busybox stays for ps and kill) and call
# python3 (perf built with PYTHON=/usr/bin/python3).  The GNU tools go to
# /opt/gnu/bin, first in PATH for guest/suites/60-perf-test only; python3
# to /usr/bin with its standard library, without its tests, IDLE, Tk,
# sqlite3, dbm and the other parts nothing here imports.
GNU_PACKAGES="coreutils grep sed findutils diffutils mawk"
perf_test_userland() {
	local f py
	mkdir -p "$root/opt/gnu/bin"
	for f in $(dpkg -L $GNU_PACKAGES | grep -E '^(/usr)?/s?bin/[^/]+$'); do
		[ -f "$f" ] && [ -x "$f" ] || continue
		cp -L "$f" "$root/opt/gnu/bin/"
		copy_libs "$f"
	done
	ln -sf mawk "$root/opt/gnu/bin/awk"
	# and from binutils and util-linux what the tests call
	for f in /usr/bin/nm /usr/bin/readelf /usr/bin/taskset; do
		cp -L "$f" "$root/opt/gnu/bin/"
		copy_libs "$f"
	done
	py=$(readlink -f /usr/bin/python3)
	copy_elf "$py"
	ln -sf "${py##*/}" "$root/usr/bin/python3"
	rsync -a --exclude=__pycache__ --exclude=test --exclude=tests --exclude=idlelib \
		--exclude=tkinter --exclude=turtledemo --exclude=ensurepip --exclude=lib2to3 \
		--exclude=pydoc_data --exclude='config-3*' --exclude=dist-packages \
		--exclude='_test*' --exclude='_ctypes_test*' --exclude='xx*' --exclude=sqlite3 \
		--exclude='_sqlite3*' --exclude=dbm --exclude='_dbm*' --exclude='_gdbm*' \
		"/usr/lib/${py##*/}/" "$root/usr/lib/${py##*/}/"
	for f in "$root/usr/lib/${py##*/}"/lib-dynload/*.so; do
		copy_libs "$f"
	done
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
	# perf report's TUI shows a tip from it, or an error line without it
	mkdir -p "$root/usr/share/doc/linux-perf"
	cp /usr/share/doc/linux-perf/tips.txt "$root/usr/share/doc/linux-perf/"
	cp -a "$BUILD/perf-install/." "$root/"
	copy_libs "$root$PERF_PREFIX/bin/perf"
	# perf test's shell tests are bash scripts; perf annotate disassembles
	# with objdump
	copy_elf /bin/bash
	copy_elf /usr/bin/objdump
	# the kselftest runner needs GNU timeout (--foreground)
	copy_elf /usr/bin/timeout
	# make fuzz (guest/fuzz.sh)
	copy_elf /usr/bin/trinity
	# a terminal for perf's TUI (guest/suites/36-lwp-perf-tui): a pty
	# driven by guest/tui.py, the screen emulated by pyte (tmux needs unix
	# sockets, which the harness kernel does not have), and the terminfo
	# entry perf's slang reads
	mkdir -p "$root/lib/terminfo/x" "$root/usr/lib/python3/dist-packages"
	cp /lib/terminfo/x/xterm "$root/lib/terminfo/x/"
	cp -r /usr/lib/python3/dist-packages/pyte /usr/lib/python3/dist-packages/wcwidth \
		"$root/usr/lib/python3/dist-packages/"
	cp "$TOP/guest/tui.py" "$root/harness/bin/tui"
	perf_test_userland
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
	cp "$TOP/guest/demo.sh" "$TOP/guest/bench.sh" "$TOP/guest/fuzz.sh" "$TOP/guest/kselftest-skip.txt" \
		"$TOP/guest/perf-test-skip.txt" "$root/harness/"
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
