#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "What Debian's users would get": upstream test_verifier, or the gate's test_progs
# subset, on the series built from Debian's whole cloud-amd64 config (kernel distro,
# ./run build distro) and on Debian's own binary of the same version (deb612-cloud),
# one guest after the other; TAP. Fails when a case fails on the patched kernel and
# passes on Debian's, or when either side did not run every case.
#   tests/distro-ab.sh LOGDIR UPSTREAM_STAGE [verifier|progs]
top=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:?LOGDIR}
stage=${2:?UPSTREAM_STAGE}
suite=${3:-verifier}
runner=test_verifier
[ "$suite" = progs ] && runner=test_progs
n=0 bad=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else bad=1; echo "not ok $n - $2"; fi; }
mkdir -p "$logs"
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
# test_verifier refuses to start without bpf_testmod.ko, test_progs' tests load it and
# its siblings: built for each side, from the same source (the selftests stage's
# copy): against the distro build's tree, and against Debian's own headers packages of
# the binary's ABI (apt-get download into the cache, unpacked there; they carry
# Module.symvers and a vmlinux for the modules' BTF). With them, the kernel's config
# (test_progs reads __kconfig values from /boot/config-RELEASE).
srcs=$(readlink -f "$CACHE/selftests/current")
kmod() {	# kmod NAME KBUILD_DIR CONFIG: $logs/distro-ab-kmod-NAME/ab-kmod/*.ko, config
	local d=$logs/distro-ab-kmod-$1 m
	rm -rf "$d" && mkdir -p "$d/ab-kmod" && cp "$3" "$d/ab-kmod/config" || return 1
	for m in bpf_testmod bpf_test_no_cfi bpf_test_modorder_x bpf_test_modorder_y; do
		[ "$m" = bpf_testmod ] || [ "$suite" = progs ] || continue
		mkdir -p "$d/$m" && cp -r "$srcs/$m/." "$d/$m/" &&
			make -C "$2" M="$d/$m" modules >>"$d/build.log" 2>&1 &&
			cp "$d/$m/$m.ko" "$d/ab-kmod/" || return 1
	done
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
kmod deb612-cloud "$hdr/root/usr/src/linux-headers-$rel" "${vmlinuz%/vmlinuz-*}/config-$rel"
ok $? "selftests' modules for deb612-cloud ($rel), from Debian's headers packages ($logs/distro-ab-kmod-deb612-cloud/build.log)"
kmod distro "$CACHE/kernel/build-patched-distro" "$CACHE/kernel/build-patched-distro/.config"
ok $? "selftests' modules for distro, from its build ($logs/distro-ab-kmod-distro/build.log)"
tmo=1500
[ "$suite" = progs ] && tmo=5400
for k in deb612-cloud distro; do
	"$top/tests/harness/harness.sh" --kernel "$k" --smp 2 --mem 2048 --timeout $tmo \
		--log "$logs/guest-distro-ab-$suite-$k.log" --add "$stage" --add "$stage/$runner" \
		--add "$logs/distro-ab-kmod-$k/ab-kmod" \
		-- sh /tests/upstream-ab.sh "$k" "$suite" >"$logs/distro-ab-$suite-$k.tap" 2>&1
	ok $? "$runner on $k: guest verdict ($logs/guest-distro-ab-$suite-$k.log)"
	grep -a "^# upstream $runner" "$logs/distro-ab-$suite-$k.tap"
	sed -n 's/^# ab-fail: //p' "$logs/distro-ab-$suite-$k.tap" | sort -u >"$logs/distro-ab-$suite-$k.fail"
done
new=$(grep -vxF -f "$logs/distro-ab-$suite-deb612-cloud.fail" "$logs/distro-ab-$suite-distro.fail")
fixed=$(grep -vxF -f "$logs/distro-ab-$suite-distro.fail" "$logs/distro-ab-$suite-deb612-cloud.fail")
[ -n "$fixed" ] && echo "$fixed" | sed 's/^/# passes on distro, fails on deb612-cloud: /'
[ -n "$new" ] && echo "$new" | sed 's/^/# FAILS on distro only: /'
[ -z "$new" ]
ok $? "$runner: no case fails on the series (Debian's config) that passes on Debian's binary ($(echo "$new" | grep -c .) new, $(wc -l <"$logs/distro-ab-$suite-distro.fail") vs $(wc -l <"$logs/distro-ab-$suite-deb612-cloud.fail") failing)"
echo "1..$n"
exit $bad
