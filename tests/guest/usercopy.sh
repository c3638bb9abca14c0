# SPDX-License-Identifier: GPL-2.0
# User memory copied into and out of map values (tests/workloads/usercopy.c): what a
# tracer that keeps paths or command lines does. With CONFIG_HARDENED_USERCOPY (Debian
# sets it, and so do our flavours: kernel/config/distro-*.config) each copy is checked
# against the usercopy region of the value's slab cache; series patch 13's exact-size
# caches (bpf_ma-N) must whitelist their whole object as the kmalloc caches did, or the
# first bpf_probe_read_user_str() into a BPF_F_NO_PREALLOC map's value is a kernel BUG
# (v16: "usercopy: Kernel memory overwrite attempt detected to SLUB object 'bpf_ma-...'").
# usage: usercopy.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
usercopy 200 >/tmp/uc.out 2>&1
rc=$?
sed 's/^/# /' /tmp/uc.out
[ $rc = 0 ]; ok $? "usercopy 200: every copy landed (exit $rc)"
for m in h_pre h_dyn l_pre l_dyn; do
	l=$(grep "^usercopy $m[ (]" /tmp/uc.out)
	echo "$l" | grep -q "updates=200 read_err=0 path=ok write=ok copy=[0-9s]"
	ok $? "$m: 200 updates, user string and buffer in the value, value written back to user memory"
done
# every exact-size cache of the series whitelists its whole object
if ls -d /sys/kernel/slab/bpf_ma-* >/dev/null 2>&1; then
	bad=""
	for c in /sys/kernel/slab/bpf_ma-*; do
		[ "$(cat "$c/usersize")" = "$(cat "$c/object_size")" ] ||
			bad="$bad ${c##*/}:$(cat "$c/usersize")/$(cat "$c/object_size")"
	done
	[ -z "$bad" ]; ok $? "bpf_ma-* caches: usersize = object_size ($(ls -d /sys/kernel/slab/bpf_ma-* | wc -l) caches)$bad"
else
	echo "# no bpf_ma-* slab caches (kernel without series patch 13)"
fi
dmesg | grep 'usercopy: Kernel memory' >/tmp/uc.dmesg
[ ! -s /tmp/uc.dmesg ]; ok $? "no usercopy report in dmesg"
sed 's/^/# /' /tmp/uc.dmesg
done_testing
