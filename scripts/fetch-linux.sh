#!/usr/bin/env bash
# Fetch the pinned Debian linux-source package and turn it into a git
# repository with one base commit (tag "base") at $BUILD/linux.
#
# Env (from the Makefile): LINUX_PKG LINUX_DEB_VERSION LINUX_DEB_SHA256
. "$(dirname "$0")/lib.sh"

: "${LINUX_PKG:?}" "${LINUX_DEB_VERSION:?}" "${LINUX_DEB_SHA256:?}"
deb="$CACHE/dl/${LINUX_PKG}_${LINUX_DEB_VERSION//:/%3a}_all.deb"
tree=$BUILD/linux

download() {
	mkdir -p "$CACHE/dl"
	if [ -f "$deb" ] && [ "$(sha256_of "$deb")" = "$LINUX_DEB_SHA256" ]; then
		echo "using cached $deb"
		return
	fi
	rm -f "$deb"
	if ! (cd "$CACHE/dl" && apt-get download -q "$LINUX_PKG=$LINUX_DEB_VERSION" 2>&1 |
		grep -v '^W: Download is performed unsandboxed'); then
		:
	fi
	if [ ! -f "$deb" ]; then
		echo "The archive no longer serves $LINUX_PKG $LINUX_DEB_VERSION. It offers:" >&2
		apt-cache madison "$LINUX_PKG" >&2 || true
		die "pinned kernel base is gone: pick a version above, set LINUX_DEB_VERSION and
LINUX_DEB_SHA256 in the Makefile (sha256sum of the new .deb), rebase patches/linux
onto it ('make tree' on the old pin, then 'git rebase'), and update the cover letter."
	fi
	check_sha256 "$deb" "$LINUX_DEB_SHA256" "$LINUX_PKG $LINUX_DEB_VERSION"
}

# Debian's tarball carries debian/gitignore.patch: the top-level .gitignore
# ends with "/*" (ignore everything) and lost upstream's "!.gitignore"-style
# exceptions, so git would track nothing. Put upstream's rules back.
fix_gitignore() {
	local f=$1/.gitignore
	grep -q '^!/debian/$' "$f" || return 0
	awk '
		/^# Debian packaging: ignore everything/ { drop = 1 }
		drop { next }
		/^# Top-level generic files$/ && !done {
			# the "#" line before this one is already printed
			print "# We don'"'"'t want to ignore the following even if they are dot-files"
			print "#"
			n = split("clang-format clippy.toml cocciconfig editorconfig get_maintainer.ignore gitattributes gitignore kunitconfig mailmap rustfmt.toml", a, " ")
			for (i = 1; i <= n; i++) print "!." a[i]
			print ""
			print "#"
			done = 1
		}
		{ print }
	' "$f" >"$f.new"
	# drop the trailing "#" line left before the removed Debian block
	sed -i -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' "$f.new"
	sed -i '${/^#$/d}' "$f.new"
	sed -i -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' "$f.new"
	mv "$f.new" "$f"
}

unpack() {
	local tmp=$BUILD/linux.unpack
	rm -rf "$tmp"
	mkdir -p "$tmp"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -O "./usr/src/$LINUX_PKG.tar.xz" | tar -xJ -C "$tmp"
	[ -f "$tmp/$LINUX_PKG/Makefile" ] || die "unexpected layout in $deb"
	fix_gitignore "$tmp/$LINUX_PKG"
	base_git_env
	(
		cd "$tmp/$LINUX_PKG"
		git init -q -b master
		git add -A
		# upstream force-tracks this directory, which a "tags" rule hides
		git add -f tools/testing/selftests/arm64/tags
		git commit -q -m "Linux $LINUX_DEB_VERSION (Debian $LINUX_PKG)" \
			-m "Unpacked from ${deb##*/}; top-level .gitignore restored to upstream's."
		git tag base
	)
	rm -rf "$tree"
	mv "$tmp/$LINUX_PKG" "$tree"
	rm -rf "$tmp"
	tree_git_config "$tree"
	echo "base commit $(git -C "$tree" rev-parse base)"
}

if [ -d "$tree/.git" ] && git -C "$tree" rev-parse -q --verify base >/dev/null; then
	exit 0
fi
need_cmd apt-get dpkg-deb git xz
step "download $LINUX_PKG $LINUX_DEB_VERSION" download
step "unpack kernel base into a git tree (one commit)" unpack
