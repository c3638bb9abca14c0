#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 12's own prebuilt kernels for suite compat: the tools on the binaries users
# run, without the series. Each is fetched with apt-get download (hashes checked
# against the signed archive lists) and unpacked with dpkg-deb -x into
# $BPFMEM_CACHE/debian/PACKAGE_VERSION/ (default /var/cache/bpfmem), never installed:
# the host's /boot and its package database are not touched.
#
#   debian-kernels.sh [NAME...]     fetch and unpack (default: all four); prints the
#                                   package and version each name uses
#   debian-kernels.sh --path NAME   the vmlinuz of NAME (fetched already), nothing else
#   debian-kernels.sh --list        the short names
#
# Names, and the metapackage that says which kernel ABI is Debian 12's current one:
#   deb612-cloud  linux-image-6.12-cloud-amd64 -> linux-image-6.12.N+deb12-cloud-amd64-unsigned
#   deb612-rt     linux-image-6.12-rt-amd64    -> linux-image-6.12.N+deb12-rt-amd64-unsigned
#   deb61-cloud   linux-image-cloud-amd64      -> linux-image-6.1.0-N-cloud-amd64-unsigned
#   deb61-rt      linux-image-rt-amd64         -> linux-image-6.1.0-N-rt-amd64-unsigned
# The unsigned image is the same kernel as the signed one, without the shim signature
# (QEMU boots it directly). A Debian update (after apt-get update) resolves to a new
# package or version, so to a new directory; one already unpacked costs two apt-cache
# calls. The kernels boot as they are: the tools need no module (VIRTIO_MMIO is a
# module there, so a guest on them has no network device: harness.sh --net refuses).
set -euo pipefail

CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}/debian
NAMES="deb612-cloud deb612-rt deb61-cloud deb61-rt"

die() { echo "debian-kernels: $*" >&2; exit 1; }

meta_of() {	# meta_of NAME: the metapackage and the pattern its kernel must match
	case "$1" in
	deb612-cloud) echo "linux-image-6.12-cloud-amd64 linux-image-6.12.*-cloud-amd64" ;;
	deb612-rt) echo "linux-image-6.12-rt-amd64 linux-image-6.12.*-rt-amd64" ;;
	deb61-cloud) echo "linux-image-cloud-amd64 linux-image-6.1.0-*-cloud-amd64" ;;
	deb61-rt) echo "linux-image-rt-amd64 linux-image-6.1.0-*-rt-amd64" ;;
	*) die "unknown kernel '$1' (names: $NAMES)" ;;
	esac
}

candidate() {	# candidate PACKAGE: the version apt would install
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | grep -v '^(none)$' | head -n1
}

resolve() {	# resolve NAME: sets PKG (the unsigned image) and VER from the apt lists
	local m meta pat sig
	m=$(meta_of "$1")
	meta=${m%% *} pat=${m#* }
	sig=$(apt-cache show --no-all-versions "$meta" 2>/dev/null |
		sed -n 's/^Depends:.*\(linux-image-[^ ,]*-amd64\) (=.*/\1/p' | head -n1)
	[ -n "$sig" ] || die "$1: apt knows no $meta (apt-get update?)"
	# shellcheck disable=SC2254
	case "$sig" in $pat) ;; *) die "$1: $meta depends on $sig, not $pat" ;; esac
	PKG=$sig-unsigned
	VER=$(candidate "$PKG")
	[ -n "$VER" ] || die "$1: apt has no candidate for $PKG (apt-get update?)"
	DIR=$CACHE/${PKG}_${VER//[:~]/_}
}

vmlinuz_in() {	# vmlinuz_in DIR: its one boot/vmlinuz-*
	local v
	for v in "$1"/boot/vmlinuz-*; do [ -f "$v" ] && { echo "$v"; return 0; }; done
	return 1
}

fetch() {	# fetch NAME
	local tmp deb
	resolve "$1"
	if [ ! -f "$DIR/.complete" ]; then
		mkdir -p "$CACHE"
		tmp=$(mktemp -d "$CACHE/.dl.XXXXXX")
		# shellcheck disable=SC2064
		trap "rm -rf '$tmp'" EXIT
		(cd "$tmp" && apt-get download -q=2 -o APT::Sandbox::User=root "$PKG=$VER") ||
			die "$1: apt-get download $PKG=$VER failed"
		deb=$(echo "$tmp"/*.deb)
		[ -f "$deb" ] || die "$1: no .deb downloaded for $PKG=$VER"
		dpkg-deb -x "$deb" "$tmp/root"
		vmlinuz_in "$tmp/root" >/dev/null || die "$1: $PKG has no boot/vmlinuz-*"
		echo "$PKG $VER" >"$tmp/root/.complete"
		rm -rf "$DIR"
		mv "$tmp/root" "$DIR"
		rm -rf "$tmp"
		trap - EXIT
		echo "debian-kernels: $1: fetched $PKG $VER" >&2
	fi
	ln -sfn "$(basename "$DIR")" "$CACHE/$1"
	printf '%-13s %s %s %s\n' "$1" "$PKG" "$VER" "$(vmlinuz_in "$DIR")"
}

case "${1:-}" in
--path)
	[ $# = 2 ] || die "usage: debian-kernels.sh --path NAME"
	resolve "$2"
	[ -f "$DIR/.complete" ] || die "$2: $PKG $VER not fetched (tests/debian-kernels.sh $2)"
	vmlinuz_in "$DIR" ;;
--list) echo "$NAMES" | tr ' ' '\n' ;;
-h|--help) sed -n '3,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//' ;;
-*) die "unknown option '$1' (--path NAME, --list)" ;;
*)
	[ $# -gt 0 ] || set -- $NAMES
	for n in "$@"; do meta_of "$n" >/dev/null; done
	mkdir -p "$CACHE"
	# one fetch at a time per cache (parallel meson tests only read)
	exec 9>"$CACHE/.lock"
	flock 9
	for n in "$@"; do fetch "$n"; done ;;
esac
