# SPDX-License-Identifier: GPL-2.0
# Counting starts at the start line: `bpfmem flows --hook kprobe`, then at once 16
# one-connection workloads, one every 0.25 s; every one of them is counted, the first
# too (CI's intermittent "redial (kprobe)": a test read the start line of an earlier
# run in a reused output file and sent its traffic before the attach).
# Sourced by /tests/flows.sh, whose helpers it uses (FLOWS_PARTS="first first ...").
start_flows /tmp/fi.json -j --closed -i 1 -T 0 --hook kprobe
t0=$(cut -d' ' -f1 /proc/uptime)
i=0
rm -f /tmp/fi.t
while [ $i -lt 16 ]; do
	flowgen tcp 127.0.0.1 $((5100 + i)) 1 1000 >/dev/null
	echo "$((5100 + i)) $(cut -d' ' -f1 /proc/uptime)" >>/tmp/fi.t
	i=$((i + 1))
	sleep 0.25
done
sleep 2.5
stop_flows
relax_if_missed /tmp/fi.json $? "bpfmem flows --hook kprobe (first)"
missed=""
for p in $(seq 5100 5115); do
	grep -q "\"[lr]port\":$p[,}]" /tmp/fi.json || missed="$missed $p"
done
[ -z "$missed" ] || echo "# start line at $t0 s; not counted:$missed; done at: $(tr '\n' ' ' </tmp/fi.t)"
[ -z "$missed" ] || [ $RELAX = 1 ]
ok $? "kprobe: 16 connections from the start line on, one every 0.25 s, all counted, the first too"
RELAX=0
