# SPDX-License-Identifier: GPL-2.0
# A kernel that does not charge kernel memory to memcgs (booted with
# cgroup.memory=nokmem, as a SLOB or !CONFIG_MEMCG_KMEM kernel such as 6.1's tinyconfig):
# bpfmem savings refuses in one line with the reason and exit 1 instead of measuring
# 0.0 KiB, and leaves no cgroup behind; maps still lists maps.
# usage: nokmem.sh FLAVOR
. /tests/lib.sh
echo "# kernel ${1:-base}: $(cat /proc/cmdline)"
grep -q 'cgroup.memory=nokmem' /proc/cmdline; ok $? "booted with cgroup.memory=nokmem"

bpfmem savings -e 1024 -o 50 --no-churn >/tmp/s.out 2>/tmp/s.err
rc=$?
sed 's/^/#   /' /tmp/s.out /tmp/s.err
[ $rc = 1 ] && [ "$(wc -l </tmp/s.err)" = 1 ] && grep -q 'does not charge BPF map memory' /tmp/s.err &&
	grep -q 'kmem' /tmp/s.err && [ ! -s /tmp/s.out ]
ok $? "savings: one line with the reason, exit $rc, no table"
left=$(ls -d /sys/fs/cgroup/bpfmem-savings-* 2>/dev/null | wc -l)
[ "$left" = 0 ]; ok $? "savings left no cgroup behind ($left)"

maps-holder -c /sys/fs/cgroup/bpfmem-nk >/tmp/mh.txt 2>&1 &
hpid=$!
wait_for '^ready' /tmp/mh.txt $hpid; ok $? "maps-holder made its maps"
bpfmem maps -p $hpid -j >/tmp/m.json 2>/tmp/m.err
rc=$?
sed 's/^/#   /' /tmp/m.err
[ $rc = 0 ] && [ ! -s /tmp/m.err ] && json-flat </tmp/m.json | grep -c '^\.maps\[[0-9]*\]\.id=' | grep -qx 6
ok $? "maps lists the holder's 6 maps (exit $rc, nothing on stderr)"
kill $hpid
wait $hpid 2>/dev/null
rmdir /sys/fs/cgroup/bpfmem-nk 2>/dev/null
done_testing
