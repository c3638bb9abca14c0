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

# splat patterns: keep in sync with tools/guest/harness.sh
SPLATS='BUG:|WARNING:|KASAN:|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|RCU stall|rcu: INFO:|detected stalls|Oops|general protection fault|blocked for more than|Kernel panic|lockdep: '

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
if grep -E "$SPLATS" /tmp/dmesg.txt >/tmp/splats.txt; then
	echo "@@bpfmem: KERNEL SPLAT in dmesg:"
	grep -E -B2 -A25 "$SPLATS" /tmp/dmesg.txt | head -n 80
	guest-exit 125
fi
[ "$rc" -gt 120 ] && rc=120
guest-exit "$rc"
echo "@@bpfmem: guest-exit failed"
exit 1
