#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "What Debian's users would get": upstream test_verifier on the series built from
# Debian's whole cloud-amd64 config (kernel distro, ./run build distro) and on Debian's
# own binary of the same version (deb612-cloud), one guest after the other; TAP.
# Fails when a case fails on the patched kernel and passes on Debian's, or when either
# side did not run every case.
#   tests/distro-ab.sh LOGDIR UPSTREAM_STAGE
top=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:?LOGDIR}
stage=${2:?UPSTREAM_STAGE}
n=0 bad=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else bad=1; echo "not ok $n - $2"; fi; }
mkdir -p "$logs"
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
# test_verifier refuses to start without bpf_testmod.ko: one built for each side, from
# the same source (the selftests stage's copy): against the distro build's tree, and
# against Debian's own headers packages of the binary's ABI (apt-get download into the
# cache, unpacked there; they carry Module.symvers and a vmlinux for the module's BTF)
src=$(readlink -f "$CACHE/selftests/current")/bpf_testmod
kmod() {	# kmod NAME KBUILD_DIR: $logs/distro-ab-kmod-NAME/ab-kmod/bpf_testmod.ko
	local d=$logs/distro-ab-kmod-$1
	rm -rf "$d" && mkdir -p "$d/src" "$d/ab-kmod" && cp -r "$src/." "$d/src/" &&
		make -C "$2" M="$d/src" modules >"$d/build.log" 2>&1 &&
		cp "$d/src/bpf_testmod.ko" "$d/ab-kmod/"
}
vmlinuz=$("$top/tests/debian-kernels.sh" --path deb612-cloud 2>/dev/null)
rel=${vmlinuz##*/vmlinuz-}	# 6.12.118+deb12-cloud-amd64
abi=${rel%-cloud-amd64}
hdr=$CACHE/debian/headers-$rel
if [ -n "$vmlinuz" ] && [ ! -f "$hdr/.ok" ]; then
	rm -rf "$hdr" && mkdir -p "$hdr" &&
	(cd "$hdr" && apt-get download -q "linux-headers-$rel" "linux-headers-$abi-common" \
		"linux-kbuild-$abi" >/dev/null 2>&1) &&
	for deb in "$hdr"/*.deb; do dpkg-deb -x "$deb" "$hdr/root" || break; done &&
	# its Makefile includes the common tree by absolute path
	sed -i "s|/usr/src/|$hdr/root/usr/src/|g" "$hdr/root/usr/src/linux-headers-$rel/Makefile" &&
	touch "$hdr/.ok"
fi
kmod deb612-cloud "$hdr/root/usr/src/linux-headers-$rel"
ok $? "bpf_testmod.ko for deb612-cloud ($rel), from Debian's headers packages ($logs/distro-ab-kmod-deb612-cloud/build.log)"
kmod distro "$CACHE/kernel/build-patched-distro"
ok $? "bpf_testmod.ko for distro, from its build ($logs/distro-ab-kmod-distro/build.log)"
for k in deb612-cloud distro; do
	"$top/tests/harness/harness.sh" --kernel "$k" --smp 2 --mem 2048 --timeout 1500 \
		--log "$logs/guest-distro-ab-$k.log" --add "$stage" --add "$stage/test_verifier" \
		--add "$logs/distro-ab-kmod-$k/ab-kmod" \
		-- sh /tests/upstream-ab.sh "$k" >"$logs/distro-ab-$k.tap" 2>&1
	ok $? "test_verifier on $k: guest verdict ($logs/guest-distro-ab-$k.log)"
	grep -a '^# upstream test_verifier' "$logs/distro-ab-$k.tap" | sed 's/^# /# /'
	sed -n 's/^# ab-fail: //p' "$logs/distro-ab-$k.tap" | sort -u >"$logs/distro-ab-$k.fail"
done
new=$(grep -vxF -f "$logs/distro-ab-deb612-cloud.fail" "$logs/distro-ab-distro.fail")
fixed=$(grep -vxF -f "$logs/distro-ab-distro.fail" "$logs/distro-ab-deb612-cloud.fail")
[ -n "$fixed" ] && echo "$fixed" | sed 's/^/# passes on distro, fails on deb612-cloud: /'
[ -n "$new" ] && echo "$new" | sed 's/^/# FAILS on distro only: /'
[ -z "$new" ]
ok $? "test_verifier: no case fails on the series (Debian's config) that passes on Debian's binary ($(echo "$new" | grep -c .) new, $(wc -l <"$logs/distro-ab-distro.fail") vs $(wc -l <"$logs/distro-ab-deb612-cloud.fail") failing)"
echo "1..$n"
exit $bad
