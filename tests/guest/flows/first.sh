# SPDX-License-Identifier: GPL-2.0
# Not in the default list: how soon after `bpfmem flows --hook kprobe` says it is
# attached do its kprobes count a connection? 16 one-connection workloads, one every
# 0.25 s from the start line on; fails if the first is not counted. Chases the
# delay start_flows() waits out (FLOWS_PARTS="first first ...", host under load).
# FIRST_CPU=N: the tool on CPU 0, the workload on CPU N (taskset).
# Sourced by /tests/flows.sh, whose helpers it uses.
on() {	# on CPU CMD...: CMD, on CPU if FIRST_CPU is set
	_c=$1
	shift
	if [ -n "${FIRST_CPU:-}" ]; then taskset -c "$_c" "$@"; else "$@"; fi
}
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
missed=""
for p in $(seq 5100 5115); do
	grep -q "\"[lr]port\":$p[,}]" /tmp/fi.json || missed="$missed $p"
done
echo "# start line at $t0 s; connections not counted:${missed:- none}; done at: $(tr '\n' ' ' </tmp/fi.t)"
case "$missed" in " 5100"*) false ;; esac
ok $? "kprobe: the first connection after the start line counted"
