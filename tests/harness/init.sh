#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# bpfmem guest /init: mount the usual file systems, run the command the host put in
# /etc/bpfmem/cmd, scan dmesg for kernel splats, report the verdict through
# isa-debug-exit (guest-exit). Protocol lines on the console start with "@@bpfmem:".
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/bin:/bin:/sbin:/usr/sbin
export HOME=/root TERM=${TERM:-linux}
mkdir -p /proc /sys /dev /tmp /root /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
# files the host --add-ed under /tmp would vanish under the tmpfs: carry them over
mv /tmp /.tmp-initramfs && mkdir /tmp
mount -t tmpfs tmpfs /tmp
cp -a /.tmp-initramfs/. /tmp/ 2>/dev/null
rm -rf /.tmp-initramfs
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
ip link set lo up 2>/dev/null
hostname bpfmem-guest
echo "@@bpfmem: /init at $(cut -d' ' -f1 /proc/uptime)s uptime, kernel $(uname -r)"

# this boot's nonce (tests/harness/harness.sh): read and deleted before the command runs,
# kept in a variable the command does not inherit; only /init prints the verdict line
nonce=$(cat /etc/bpfmem/nonce 2>/dev/null)
rm -f /etc/bpfmem/nonce
# splat patterns, one extended regex a line: the same file the host scans the log with
SPLATF=/etc/bpfmem/splats.re

cd /root
if [ -f /etc/bpfmem/interactive ]; then
	echo "@@bpfmem: interactive shell; 'exit' ends the guest"
	setsid cttyhack sh -l
	rc=$?
else
	sh /etc/bpfmem/cmd
	rc=$?
fi
echo "@@bpfmem: command exit status $rc at $(cut -d' ' -f1 /proc/uptime)s uptime"

dmesg >/tmp/dmesg.txt
if grep -E -f "$SPLATF" /tmp/dmesg.txt >/tmp/splats.txt; then
	echo "@@bpfmem: KERNEL SPLAT in dmesg:"
	grep -E -B2 -A25 -f "$SPLATF" /tmp/dmesg.txt | head -n 80
	echo "@@bpfmem: verdict $nonce status $rc"
	guest-exit 125
fi
echo "@@bpfmem: verdict $nonce status $rc"
# 126 is a pass (QEMU exits 253); QEMU's own failures exit 1, as isa-debug-exit 0 would
code=$rc
[ "$code" = 0 ] && code=126
[ "$code" -gt 120 ] && [ "$code" != 126 ] && code=120
guest-exit "$code"
echo "@@bpfmem: guest-exit failed"
exit 1
