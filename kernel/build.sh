#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfmem kernel pipeline: Debian linux-source-6.12 -> git tree -> `git am` of
# kernel/patches/*.patch -> config from kernel/config fragments -> bzImage + vmlinux.
#
#   kernel/build.sh [--flavor base|rt|debug|distro|distro-rt] [--vanilla] [--ksrc 6.12|6.1]
#                   [--print-dir]
#
# distro, distro-rt: the series on Debian's own whole config (cloud-amd64, rt_amd64;
# `kernel/config/distro.py full`: modules left out, no module signing), "what Debian's
# users would get" (./run build distro, ./run test --full); the other flavours are
# tinyconfig + kernel/config fragments, Debian's options in the families that matter.
# --ksrc 6.1: Debian 12's own kernel line (linux-source-6.1), vanilla base only (the
# series is against 6.12), for the tools' tests on kernels without the series (suite
# compat); its own tree in $BPFMEM_CACHE/kernel-6.1, fragments + config/linux-6.1.config.
# BPFMEM_PATCHES_DIR overrides the series directory (e.g. an empty one).
# The tree lives in $BPFMEM_CACHE (default /var/cache/bpfmem), never in the repo.
# Two work trees are kept: "patched" (pristine + series) and "vanilla" (pristine).
# Switching the series re-checks-out only the files that differ, so make rebuilds
# only what changed; ccache catches the rest.  A build whose key (tree version +
# series + fragments) is unchanged is not rebuilt at all.
# (A patched flavour could start from a copy of the vanilla build of its flavour; it
# would save nothing: 1171 of the base kernel's 1179 objects include linux/bpf.h,
# which the series changes.)
set -euo pipefail

# The whole script is one function, parsed before it runs: editing this file while a
# build is under way (bash reads scripts as it goes) cannot change what that build does.
main() {
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
JOBS=${BPFMEM_JOBS:-$(($(nproc) + 1))}
flavor=base
variant=patched
ksrc=6.12
print_dir=0

while [ $# -gt 0 ]; do
	case "$1" in
	--flavor) flavor=$2; shift 2 ;;
	--vanilla) variant=vanilla; shift ;;
	--ksrc) ksrc=$2; shift 2 ;;
	--print-dir) print_dir=1; shift ;;
	# the build key (tree version, series, fragments) without touching any tree: what
	# the committed vanilla results of the upstream selftests are stamped with
	--print-key) print_dir=key; shift ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) echo "kernel/build.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$flavor" in base|rt|debug|distro|distro-rt) ;; *)
	echo "kernel/build.sh: unknown flavor '$flavor' (base|rt|debug|distro|distro-rt)" >&2; exit 2 ;;
esac
# each kernel line has its own cache directory (pristine repository, trees, builds, lock)
case "$ksrc" in
6.12)
	TARBALL=${BPFMEM_KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
	kroot=$CACHE/kernel ;;
6.1)
	# the series and the rt/debug flavours are 6.12's (PREEMPT_RT is mainline since 6.12)
	if [ "$variant" != vanilla ] || [ "$flavor" != base ]; then
		echo "kernel/build.sh: --ksrc 6.1 builds only --vanilla --flavor base" >&2; exit 2
	fi
	TARBALL=/usr/src/linux-source-6.1.tar.xz
	kroot=$CACHE/kernel-6.1 ;;
*) echo "kernel/build.sh: unknown --ksrc '$ksrc' (6.12|6.1)" >&2; exit 2 ;;
esac

config_frags() {	# the fragments of this flavour and variant, in merge order
	# (distro flavours: the script that prints Debian's whole config, and that config)
	case "$flavor" in distro*)
		echo "$here/config/distro.py $(python3 "$here/config/distro.py" debian-path "$flavor")"
		return ;;
	esac
	# Debian's own options in the families that matter to the series (slab/mm, memcg,
	# BPF, hardening, preemption/RCU, tracing; config/distro.py): cloud-amd64's for base
	# and debug, rt_amd64's for rt. 6.1 (compat) keeps our own minimal guest.
	local distro="" frags
	if [ "$ksrc" = 6.12 ]; then
		if [ "$flavor" = rt ]; then distro=$here/config/distro-rt.config; else distro=$here/config/distro-cloud.config; fi
	fi
	frags="$here/config/base.config $here/config/selftests.config $here/config/trim.config $distro"
	[ "$flavor" != base ] && frags="$frags $here/config/$flavor.config"
	# 6.1: what its Kconfig needs beyond 6.12's (linux-6.1.config says what and why)
	[ "$ksrc" = 6.1 ] && frags="$frags $here/config/linux-6.1.config"
	[ "$variant" = patched ] && [ -f "$here/config/series.config" ] && [ -n "$patches" ] &&
		frags="$frags $here/config/series.config"
	echo $frags
}

t0=$(date +%s)
stage() { printf '[kernel %s%s/%s +%4ss] %s\n' "$([ "$ksrc" = 6.12 ] || echo "$ksrc ")" "$variant" "$flavor" \
	"$(($(date +%s) - t0))" "$*" >&2; }
die() { echo "kernel/build.sh: $*" >&2; exit 1; }

[ -f "$TARBALL" ] || die "missing $TARBALL (apt-get install linux-source-$ksrc)"

if [ "$print_dir" = key ]; then
	if [ "$variant" = patched ]; then
		patches=$(ls "${BPFMEM_PATCHES_DIR:-$here/patches}"/*.patch 2>/dev/null | LC_ALL=C sort || true)
	else
		patches=""
	fi
	tree_ver=$(stat -c '%s-%Y' "$TARBALL")
	series_key=$( { echo "$tree_ver"; for p in $patches; do cat "$p"; done; } | sha256sum | cut -c1-16)
	frags=$(config_frags)
	# shellcheck disable=SC2086
	echo "$series_key-$(cat $frags | sha256sum | cut -c1-16)"
	exit 0
fi

mkdir -p "$kroot"
exec 9>"$kroot/.lock"
if ! flock -n 9; then
	# another ./run holds the tree: say who and what, then wait
	echo "kernel/build.sh: waiting for the kernel tree lock, held by $(cat "$kroot/.lock.who" 2>/dev/null || echo "an unknown process")" >&2
	flock 9
fi
echo "pid $$ (since $(date +%T)): kernel/build.sh --ksrc $ksrc --flavor $flavor ($variant)" >"$kroot/.lock.who"

# --- 1. pristine git repository of the Debian tree -----------------------------
tree_ver=$(stat -c '%s-%Y' "$TARBALL")
pristine=$kroot/pristine
if [ ! -f "$pristine/.bpfmem-ok" ] || [ "$(cat "$pristine/.bpfmem-ok")" != "$tree_ver" ]; then
	stage "unpacking $TARBALL (once)"
	rm -rf "$pristine" "$kroot"/tree-* "$kroot"/vanilla
	mkdir -p "$pristine"
	tar -xJf "$TARBALL" -C "$pristine" --strip-components=1
	stage "creating git repository of the pristine tree"
	git -C "$pristine" init -q -b upstream
	git -C "$pristine" config user.name bpfmem
	git -C "$pristine" config user.email bpfmem@localhost
	git -C "$pristine" config gc.auto 0
	git -C "$pristine" add -A -f .
	git -C "$pristine" commit -q -m "Debian linux-source-$ksrc ($(basename "$TARBALL"), $tree_ver)"
	git -C "$pristine" tag -f pristine >/dev/null
	echo "$tree_ver" >"$pristine/.bpfmem-ok"
fi

# --- 2. work tree with the series applied -------------------------------------
# Each build directory is a direct subdirectory of its tree, and make then names the
# source tree "..": paths are the same in the vanilla and the patched tree, and ccache
# (BASEDIR, NOHASHDIR) shares every object the series does not touch. The build
# directories are reached through links at their old places ($kroot/build-patched-F,
# $kroot/vanilla/build-F).
if [ "$variant" = patched ]; then
	tree=$kroot/tree-patched
	link=$kroot/build-patched-$flavor
else
	mkdir -p "$kroot/vanilla"
	tree=$kroot/vanilla/tree-patched
	link=$kroot/vanilla/build-$flavor
fi
out=$tree/build-$flavor
if [ "$variant" = patched ]; then
	patches=$(ls "${BPFMEM_PATCHES_DIR:-$here/patches}"/*.patch 2>/dev/null |
		LC_ALL=C sort || true)
else
	patches=""
fi
series_key=$( { echo "$tree_ver"; for p in $patches; do cat "$p"; done; } | sha256sum | cut -c1-16)
add_tree() {	# add_tree DIR
	git -C "$pristine" worktree prune
	git -C "$pristine" worktree add -q --detach "$1" refs/tags/pristine
}
if [ ! -d "$tree" ]; then
	stage "adding work tree $tree"
	add_tree "$tree"
fi
if [ "$(cat "$tree/.bpfmem-series" 2>/dev/null)" != "$series_key" ]; then
	n=$(echo "$patches" | grep -c . || true)
	stage "applying series: $n patch(es) with git am"
	# `git am` runs in a scratch work tree; the build's work tree then checks out the
	# result, which rewrites only the files that differ from what it had, so make
	# rebuilds only what the series change really touched.
	# A work tree that was just added (nothing built in it yet) takes the series
	# directly: a second checkout of 80k files for the scratch would cost ~20 s.
	scratch=$kroot/am-scratch
	fresh=0
	[ ! -f "$tree/.bpfmem-series" ] &&
		[ "$(git -C "$tree" rev-parse HEAD)" = "$(git -C "$pristine" rev-parse refs/tags/pristine)" ] &&
		fresh=1
	[ "$fresh" = 1 ] && scratch=$tree
	[ -d "$scratch" ] || add_tree "$scratch"
	git -C "$scratch" am --abort >/dev/null 2>&1 || true
	git -C "$scratch" checkout -q -f --detach refs/tags/pristine
	if [ -n "$patches" ]; then
		# shellcheck disable=SC2086
		git -C "$scratch" am -q --whitespace=nowarn $patches ||
			die "git am failed; see 'git -C $scratch am --show-current-patch'"
	fi
	# A file `git am` wrote in the second the index was written is "racily clean":
	# git keeps it marked as possibly changed, and the checkout below would rewrite
	# it though its content is the same (linux/bpf.h, which nearly every object
	# includes: a whole rebuild). Refresh first: git compares such files' content.
	if [ "$fresh" = 0 ]; then
		git -C "$tree" update-index -q --refresh >/dev/null || true
		git -C "$tree" checkout -q -f --detach "$(git -C "$scratch" rev-parse HEAD)"
	fi
	git -C "$tree" clean -q -fdx -e .bpfmem-series -e '/build-*'
	echo "$series_key" >"$tree/.bpfmem-series"
fi

# --- 3. configuration ------------------------------------------------------------
frags=$(config_frags)
# shellcheck disable=SC2086
frag_key=$(cat $frags | sha256sum | cut -c1-16)
key="$series_key-$frag_key"

# the build directory's link (a real directory there is a build of the old layout)
if [ ! -L "$link" ]; then
	rm -rf "$link"
	ln -sfn "$out" "$link"
fi

if [ "$print_dir" = 1 ]; then echo "$link"; exit 0; fi

if [ -f "$out/.bpfmem-key" ] && [ "$(cat "$out/.bpfmem-key")" = "$key" ] &&
	[ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/vmlinux" ]; then
	if [ ! -f "$out/Module.symvers" ]; then
		# a build from before the selftests' modules: modpost writes the exports
		stage "Module.symvers for out-of-tree modules (make modules)"
		mk -j"$JOBS" bzImage modules >>"$out/build.log" 2>&1 || die "make modules failed; log $out/build.log"
	fi
	stage "up to date ($key)"
	echo "$link"
	exit 0
fi
rm -f "$out/.bpfmem-key"
mkdir -p "$out"

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$kroot
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
export KBUILD_BUILD_USER=bpfmem KBUILD_BUILD_HOST=bpfmem
# ccache pays when a build directory is rebuilt for another series or config and
# a compile repeats one it has seen; on a fresh cache every compile is a miss and
# costs about 12% more than plain gcc (kernel/bpf/verifier.o: 12.0 s against
# 10.7 s). A cache without a ccache directory (a fresh machine) therefore builds
# without it; BPFMEM_CCACHE=1 turns it on (and creates the directory), 0 off.
cc=gcc
case "${BPFMEM_CCACHE:-auto}" in
1) cc="ccache gcc"; mkdir -p "$CCACHE_DIR" ;;
auto) [ -d "$CCACHE_DIR" ] && cc="ccache gcc" ;;
esac
mk() { make -s -C "$tree" O="$out" ARCH=x86_64 CC="$cc" HOSTCC="$cc" "$@"; }

case "$flavor" in
distro*)
	stage "configuring: Debian's whole config (distro.py full $flavor)"
	python3 "$here/config/distro.py" full "$flavor" >"$out/.config"
	mk olddefconfig >/dev/null
	frags="" ;;
*)
	stage "configuring: tinyconfig + $(for f in $frags; do basename "$f" .config; done | paste -sd+)"
	mk tinyconfig >/dev/null
	# merge_config.sh writes temporary files into the current directory
	(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >/dev/null)
	mk olddefconfig >/dev/null ;;
esac

missing=""
for f in $frags; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$out/.config" || missing="$missing ${line}" ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			grep -q "^$opt=" "$out/.config" && missing="$missing $opt=n" ;;
		esac
	done <"$f"
done
[ -z "$missing" ] || die "config options that did not stick after olddefconfig:$missing"

case "$flavor" in
distro*) stage "building bzImage + vmlinux (make -j$JOBS; Debian's whole config: about 60 min cold on 2 CPUs)" ;;
*) stage "building bzImage + vmlinux (make -j$JOBS; a cold build takes 11-14 min on 2 CPUs)" ;;
esac
# modules: nothing is built as a module, but modpost writes Module.symvers, which the
# selftests' out-of-tree modules (bpf_testmod.ko, tests/selftests-build.sh) link against
if ! mk -j"$JOBS" bzImage modules >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "kernel build failed; full log: $out/build.log"
fi
echo "$key" >"$out/.bpfmem-key"
stage "done: $out/arch/x86/boot/bzImage ($(du -h "$out/arch/x86/boot/bzImage" | cut -f1))"
echo "$link"
}
main "$@"; exit $?	# one line: bash has read it all before main runs
