#!/usr/bin/env bash
# Build the kernel from the work tree ($BUILD/linux) out of tree.
#   build-kernel.sh [plain|debug|base]
# base: the unpatched base (tag "base", in the worktree $BUILD/linux-base)
# with the same configuration less the LWP options, for comparisons.
# Output: $BUILD/kernel[-debug|-base]/arch/x86/boot/bzImage and usr/include (UAPI headers).
. "$(dirname "$0")/lib.sh"

variant=${1:-plain}
src=$BUILD/linux
out=$(kernel_out "$variant")
frags=("$TOP/configs/harness.config")
if [ "$variant" = debug ]; then
	frags+=("$TOP/configs/debug.config")
fi
[ -f "$src/Makefile" ] || die "no kernel tree at $src: run 'make tree'"
need_cmd gcc make flex bison bc perl
mkdir -p "$out"
if [ "$variant" = base ]; then
	[ -e "$BUILD/linux-base/.git" ] || git -C "$src" worktree add -q --detach "$BUILD/linux-base" base
	git -C "$BUILD/linux-base" checkout -q --detach base
	src=$BUILD/linux-base
	grep -v LWP "$TOP/configs/harness.config" >"$out/base.config"
	frags=("$out/base.config")
fi

kmake=(make -C "$src" O="$out" LOCALVERSION= -j"$(nproc)")
if use_ccache; then
	kmake+=(CC="ccache gcc")
fi

configure() {
	"${kmake[@]}" -s tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	"${kmake[@]}" -s olddefconfig
	# every line of the fragments must have taken effect
	local f line sym bad=0
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) sym=${line%%=*} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
			*) continue ;;
			esac
			if ! grep -qxF "$line" "$out/.config"; then
				echo "config: ${f##*/} asks for '$line' but got '$(grep -E "^$sym=|^# $sym is not set" "$out/.config" || echo unset)'" >&2
				bad=1
			fi
		done <"$f"
	done
	[ $bad -eq 0 ] || die "kernel config fragments did not apply (dependencies missing?)"
}

# Re-run the config step only when its inputs change.
stamp=$out/.harness-config
want=$(cat "${frags[@]}" "$src/kernel/configs/tiny.config" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	step "configure kernel ($variant: tinyconfig + ${frags[*]##*/})" configure
	echo "$want" >"$stamp"
fi
step "build kernel ($variant)" "${kmake[@]}" -s bzImage
step "install kernel UAPI headers" "${kmake[@]}" -s headers
ls -l "$out/arch/x86/boot/bzImage" | awk '{print "bzImage: " $5 " bytes"}'
