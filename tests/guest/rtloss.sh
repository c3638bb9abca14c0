# SPDX-License-Identifier: GPL-2.0
# Events the tracers lose, with and without a CPU-bound competitor on every CPU
# (tests/bench/guest/rt-loss.sh, scaled down): `bpfmem syscalls -c` must count every
# getppid and exit_group of its workload, `bpfmem flows --closed` a tcp_close record
# for every socket of a TCP churn, for fentry, kprobe and tracepoint hooks, with no
# run missed where the kernel promises none (below, case by case). On PREEMPT_RT the
# fentry programs rely on series patches 19 (runs in task context wait for a preempted
# one) and 20 (programs that qualify, among them flows' packet and teardown hooks, run
# non-preemptible, since series v17 because the tools ask for it with
# BPF_F_RT_NONPREEMPT and kernel.bpf_rt_nonpreempt is 1 by default), kprobe ones on
# patch 1. With the switch at 0 (PREEMPT_RT with the series only) the fentry cases
# run again under a competitor: every event counted or reported missed; how many
# were missed is printed, not asserted (timing).
# usage: rtloss.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
CALLS=20000
CONNS=300
NP=/proc/sys/kernel/bpf_rt_nonpreempt
if [ -e $NP ]; then
	# the runs below are at the default: programs that ask (the tools') qualify
	[ "$(cat $NP)" = 1 ]; ok $? "kernel.bpf_rt_nonpreempt at its default 1 (on request): $(cat $NP)"
fi
sh /bench/rt-loss.sh $CALLS $CONNS >/tmp/rl.out 2>&1
ok $? "/bench/rt-loss.sh $CALLS $CONNS ran"
sed 's/^/# /' /tmp/rl.out
rt=no
bpfmem probe 2>/dev/null | grep -q '^PREEMPT_RT: *yes' && rt=yes
n=0
# What the kernel promises, case by case (a missed run: the kernel skipped a program
# and counted it in its recursion_misses, which the tool reports as missed):
#  - a missed run never adds to a count: counted <= expected always, and every event
#    not counted is a missed run (counted + missed >= expected), so with none missed
#    the count is exact;
#  - syscalls, every hook, every kernel here: none missed. Its programs run only in
#    task context at syscall entry and exit (never from an interrupt), and no run is
#    preempted: base's preemption is voluntary (PREEMPT_DYNAMIC, never preempted
#    inside a program or inside the tool's own BPF syscall, which raises
#    bpf_prog_active for kprobes), PREEMPT_RT runs them non-preemptible (patch 20;
#    kprobes: patch 1). No other program runs meanwhile.
#  - flows on PREEMPT_RT with the series: none missed (patches 1, 19 and 20;
#    softirqs run in task context there, serialized per CPU, never on top of a run).
#  - flows on a kernel without PREEMPT_RT: misses may happen, by design. Its packet
#    hooks run both in task context with softirqs enabled (ip_output on a send,
#    tcp_v4_do_rcv and the teardown from the socket's backlog at release_sock()) and in
#    softirq; a softirq on irq exit on top of such a run that reaches a program of
#    flows is skipped: with kprobe hooks any of them (bpf_prog_active is one per CPU
#    for all kprobe programs), with fentry the same program only (its own per-CPU
#    guard, rarer). CI saw "kprobe, competitor cpu: 600 of 600 counted, 1 missed" (a
#    packet hook's run: the count did not need it). So there: counted <= expected <=
#    counted + missed, and the misses stay few: at most a tenth of the sockets (a
#    program skipped every time, say a guard left raised, misses thousands).
# rows: tool hook load expected counted missed lost
while read -r tool hook load exp cnt miss _; do
	case $tool in syscalls|flows) ;; *) continue ;; esac
	n=$((n + 1))
	if [ $tool = flows ] && [ $rt = no ]; then
		[ "$cnt" -le "$exp" ] && [ $((cnt + miss)) -ge "$exp" ] && [ "$miss" -le $((exp / 10)) ]
		ok $? "$tool $hook, competitor $load: $cnt of $exp counted, $miss missed (not PREEMPT_RT: every socket counted or a missed run, at most $((exp / 10)) missed)"
	else
		[ "$cnt" = "$exp" ] && [ "$miss" = 0 ]
		ok $? "$tool $hook, competitor $load: $cnt of $exp counted, $miss missed (none may be)"
	fi
done </tmp/rl.out

# PREEMPT_RT: which of flows' programs run non-preemptible (series patch 20): the
# packet ones (from softirq and under socket locks, where a busy program cannot be
# waited for) and the TCP teardown ones (a lookup by key, no search of the map); not
# the send/recv ones, which create socket storage (slab) and run in plain task
# context, where patch 19 waits, and not the UDP teardown ones, which may walk the
# whole flow map (bpf_for_each_map_elem: no bound the verifier knows) and run in task
# context (close()) too
flows_marks() {	# NAME=0|1 for each of flows' fentry/fexit programs, from bpfmem progs
	: >/tmp/fl.out	# not the previous call's "Tracing" (wait_for in lib.sh)
	bpfmem flows >/tmp/fl.out 2>/tmp/fl.err &
	fp=$!
	wait_for Tracing /tmp/fl.out $fp
	bpfmem progs -j -i 1 -n 1 -T 0 >/tmp/progs.json
	kill -INT $fp
	wait $fp
	grep -o '"name":"f[ex]_[^"]*"[^}]*"rt_nonpreempt":[01n]' /tmp/progs.json |
		sed 's/"name":"\([^"]*\)".*"rt_nonpreempt":\(.\)/\1=\2/' | sort | tr '\n' ' '
}
if [ -e /proc/sys/kernel/bpf_rt_nonpreempt ]; then
	np=$(flows_marks)
	echo "# flows programs, rt_nonpreempt: $np"
	want="fe_inet_csk_des=1 fe_ip6_output=1 fe_ip_output=1 fe_skb_consume_=0 fe_tcp_disconne=1 fe_tcp_v4_do_rc=1 fe_tcp_v6_do_rc=1 fe_udp_destroy_=0 fe_udp_enqueue=1 fe_udpv6_destro=0 fx_tcp_recvmsg=0 fx_tcp_sendmsg=0 fx_udp_sendmsg=0 fx_udpv6_sendms=0 "
	[ "$np" = "$want" ]; ok $? "flows: the packet and TCP teardown programs run non-preemptible (they ask, switch 1), the send/recv and UDP teardown ones not"

	# kernel.bpf_rt_nonpreempt=0: the tools still ask, nothing is granted, and
	# runs under a lock or in softirq are skipped again while another task is
	# preempted inside the program (patch 19 waits only in plain task context).
	# Whether any is missed depends on timing: reported, not asserted; what is
	# asserted is that every event is counted or reported missed.
	echo 0 >$NP
	sh /bench/rt-loss.sh $CALLS $CONNS fentry cpu >/tmp/rl0.out 2>&1
	ok $? "/bench/rt-loss.sh $CALLS $CONNS fentry cpu ran (kernel.bpf_rt_nonpreempt=0)"
	sed 's/^/# /' /tmp/rl0.out
	n0=0
	while read -r tool hook load exp cnt miss _; do
		case $tool in syscalls|flows) ;; *) continue ;; esac
		n0=$((n0 + 1))
		[ "$cnt" -le "$exp" ] && [ $((cnt + miss)) -ge "$exp" ]
		ok $? "switch 0: $tool $hook, competitor $load: $cnt of $exp counted, $miss missed (every event counted or a missed run)"
		echo "# switch 0 (no non-preemptible runs): $tool $hook $load missed $miss (switch 1: $(awk -v t=$tool -v h=$hook -v l=$load '$1 == t && $2 == h && $3 == l { print $6 }' /tmp/rl.out))"
	done </tmp/rl0.out
	[ $n0 = 2 ]; ok $? "switch 0: 2 cases (syscalls and flows, fentry, competitor cpu): $n0"
	np=$(flows_marks)
	echo "# flows programs at switch 0, rt_nonpreempt: $np"
	[ -n "$np" ] && ! echo "$np" | grep -q '=[^0]'
	ok $? "switch 0: none of flows' programs runs non-preemptible though they ask"
	echo 1 >$NP
fi
[ $n = 10 ]; ok $? "10 cases (syscalls: fentry, kprobe, tp; flows: fentry, kprobe; without and with a competitor): $n"
done_testing
