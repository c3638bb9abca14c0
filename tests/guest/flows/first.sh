# SPDX-License-Identifier: GPL-2.0
# Counting starts at the start line: `bpfmem flows --hook kprobe`, then at once 16
# one-connection workloads, one every 0.25 s; every one of them is counted, the first
# too (CI's intermittent "redial (kprobe)": a test read the start line of an earlier
# run in a reused output file and sent its traffic before the attach).
# FIRST_CPU=N: the tool on CPU 0, the workload on CPU N (taskset).
# Sourced by /tests/flows.sh, whose helpers it uses (FLOWS_PARTS="first first ...").
on() {	# on CPU CMD...: CMD, on CPU if FIRST_CPU is set
	_c=$1
	shift
	if [ -n "${FIRST_CPU:-}" ]; then taskset -c "$_c" "$@"; else "$@"; fi
}
: >/tmp/fi.json	# not an earlier run's start line (start_flows in flows.sh)
# the tool itself, not a subshell running it: stop_flows signals $FPID
if [ -n "${FIRST_CPU:-}" ]; then
	taskset -c 0 bpfmem flows -j --closed -i 1 -T 0 --hook kprobe >/tmp/fi.json 2>/tmp/fi.err &
else
	bpfmem flows -j --closed -i 1 -T 0 --hook kprobe >/tmp/fi.json 2>/tmp/fi.err &
fi
FPID=$!
while kill -0 $FPID 2>/dev/null && ! grep -q '"type":"start"' /tmp/fi.json; do
	sleep 0.02
done
t0=$(cut -d' ' -f1 /proc/uptime)
i=0
rm -f /tmp/fi.t
while [ $i -lt 16 ]; do
	on "${FIRST_CPU:-0}" flowgen tcp 127.0.0.1 $((5100 + i)) 1 1000 >/dev/null
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
