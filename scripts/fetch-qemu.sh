#!/usr/bin/env bash
# Fetch Debian's qemu source package at the pinned version, unpack it with
# Debian's own patches applied (dpkg-source), and turn it into a git
# repository with one base commit (tag "base") at $BUILD/qemu.
#
# The machine's apt setup has no deb-src lines; a private apt configuration
# under $CACHE/apt is used instead, so /etc/apt is left alone.
#
# Env (from the Makefile): QEMU_SRC_VERSION QEMU_DSC_SHA256 QEMU_ORIG_SHA256
#                          QEMU_DEBIAN_SHA256
. "$(dirname "$0")/lib.sh"

: "${QEMU_SRC_VERSION:?}" "${QEMU_DSC_SHA256:?}" "${QEMU_ORIG_SHA256:?}" "${QEMU_DEBIAN_SHA256:?}"
v=${QEMU_SRC_VERSION#*:}		# no epoch in file names
upstream=${v%-*}
dsc=$CACHE/dl/qemu_$v.dsc
orig=$CACHE/dl/qemu_$upstream.orig.tar.xz
deb=$CACHE/dl/qemu_$v.debian.tar.xz
tree=$BUILD/qemu

apt_private() {
	local a=$CACHE/apt
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/sources.list.d"
	cat >"$a/sources.list" <<EOS
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
EOS
	cat >"$a/apt.conf" <<EOS
Dir::Etc::SourceList "$a/sources.list";
Dir::Etc::SourceParts "$a/sources.list.d";
Dir::State::Lists "$a/lists";
Dir::Cache "$a/cache";
EOS
	export APT_CONFIG=$a/apt.conf
}

cached_ok() {
	[ -f "$dsc" ] && [ -f "$orig" ] && [ -f "$deb" ] &&
		[ "$(sha256_of "$dsc")" = "$QEMU_DSC_SHA256" ] &&
		[ "$(sha256_of "$orig")" = "$QEMU_ORIG_SHA256" ] &&
		[ "$(sha256_of "$deb")" = "$QEMU_DEBIAN_SHA256" ]
}

download() {
	mkdir -p "$CACHE/dl"
	if cached_ok; then
		echo "using cached qemu $QEMU_SRC_VERSION source"
		return
	fi
	apt_private
	apt-get update -q 2>&1 | grep -v 'unsandboxed' | tail -2
	if ! (cd "$CACHE/dl" && apt-get source -q --download-only "qemu=$QEMU_SRC_VERSION" 2>&1 |
		grep -v 'unsandboxed'); then
		:
	fi
	if [ ! -f "$dsc" ] || [ ! -f "$orig" ] || [ ! -f "$deb" ]; then
		echo "The archive no longer serves the qemu source $QEMU_SRC_VERSION. It offers:" >&2
		apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: /  /p' >&2 || true
		die "pinned QEMU base is gone: pick a version above, set QEMU_SRC_VERSION and the
three QEMU_*_SHA256 pins in the Makefile, and rebase patches/qemu onto it
('make qemu-tree' on the old pin, then 'git rebase')."
	fi
	check_sha256 "$dsc" "$QEMU_DSC_SHA256" "qemu .dsc"
	check_sha256 "$orig" "$QEMU_ORIG_SHA256" "qemu orig tarball"
	check_sha256 "$deb" "$QEMU_DEBIAN_SHA256" "qemu debian tarball"
}

unpack() {
	local tmp=$BUILD/qemu.unpack
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# checksums were verified above; dpkg-source re-checks them against the .dsc
	(cd "$tmp" && dpkg-source -q --no-check -x "$dsc" src) | grep -v '^dpkg-source: info' || true
	[ -f "$tmp/src/VERSION" ] || die "dpkg-source did not unpack $dsc"
	rm -rf "$tmp/src/.pc"		# quilt's bookkeeping, not source
	base_git_env
	(
		cd "$tmp/src"
		git init -q -b master
		git add -A -f
		git commit -q -m "QEMU $QEMU_SRC_VERSION (Debian source, Debian patches applied)"
		git tag base
	)
	rm -rf "$tree"
	mv "$tmp/src" "$tree"
	rm -rf "$tmp"
	tree_git_config "$tree"
	echo "base commit $(git -C "$tree" rev-parse base) (QEMU $(cat "$tree/VERSION"))"
}

if [ -d "$tree/.git" ] && git -C "$tree" rev-parse -q --verify base >/dev/null; then
	exit 0
fi
need_cmd apt-get dpkg-source git xz
step "download qemu $QEMU_SRC_VERSION source" download
step "unpack QEMU base (Debian patches applied) into a git tree" unpack
