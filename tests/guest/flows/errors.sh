# SPDX-License-Identifier: GPL-2.0
# Errors: one line and a non-zero exit for bad arguments, no privilege, no BTF.
# Sourced by /tests/flows.sh, whose helpers and settings it uses.
# ---- errors: one line, non-zero exit ----
ERR_TOOL=flows
err_case "bad -s" "invalid -s" bpfmem flows -s bogus
err_case "bad --proto" "invalid --proto" bpfmem flows --proto icmp
err_case "bad --ringbuf" "invalid --ringbuf" bpfmem flows --ringbuf 5000
err_case "bad -T" "invalid -T" bpfmem flows -T -1
err_case "bad -i" "invalid number of seconds" bpfmem flows -i 0
err_case "-4 with -6" "exclusive" bpfmem flows -4 -6
err_case "extra argument" "unexpected argument" bpfmem flows 1 2
err_case "nonexistent PID" "no such process" bpfmem flows -p 999999
err_case "nonexistent cgroup" "no such cgroup" bpfmem flows -c /sys/fs/cgroup/nonexistent
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
err_case "no privilege" "no privilege" su nobody -s /bin/sh -c 'bpfmem flows -d 1'
mount -t tmpfs none /sys/kernel/btf
err_case "no BTF" "BTF not found" bpfmem flows -d 1
umount /sys/kernel/btf
