# SPDX-License-Identifier: GPL-2.0
# TAP helpers for guest test scripts: source it, call ok/check, end with done_testing.
_n=0
_fail=0
ok() {	# ok CONDITION_EXIT_STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_fail=$((_fail + 1))
	fi
}
check() {	# check DESCRIPTION CMD... : runs CMD, result by exit status, output on failure
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	ok "$rc" "$desc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	return $rc
}
skip() {
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP $2"
}
kv() {	# kv FILE KEY WORD...: on the first line of FILE whose first fields are the WORDs,
	# the field after KEY ("KEY VALUE" pairs of a workload's output line)
	local file=$1 key=$2
	shift 2
	awk -v key="$key" -v sel="$*" 'BEGIN { n = split(sel, w, " ") }
		{ for (i = 1; i <= n; i++) if ($i != w[i]) next
		  for (i = n + 1; i < NF; i++) if ($i == key) { print $(i + 1); exit } }' "$file"
}

# wait_for PATTERN FILE [PID]: until PATTERN is in FILE (or PID died), 60 s max.
# FILE must not hold an earlier run's output: a background "cmd >FILE &" truncates
# it only when the child runs, which a loaded CPU can delay past the first read.
wait_for() {
	local i=0
	while ! grep -q "$1" "$2" 2>/dev/null; do
		[ -n "$3" ] && ! kill -0 "$3" 2>/dev/null && return 1
		i=$((i + 1))
		[ $i -gt 600 ] && return 1
		sleep 0.1
	done
}
wait_attached() {	# wait_attached PID N: until PID holds N perf_event/bpf_link fds, 60 s max
	_waited=0
	while [ $_waited -lt 600 ]; do
		_attached=$(for f in /proc/$1/fd/*; do readlink "$f"; done 2>/dev/null |
			grep -c 'perf_event\|bpf_link')
		[ "$_attached" -ge "$2" ] && return 0
		sleep 0.1
		_waited=$((_waited + 1))
	done
	return 1
}
done_testing() {	# the plan is printed by the host harness (--tap), after its verdict
	[ "$_fail" = 0 ]
	exit $?
}

# runs the kernel skipped, as the tools report them (PREEMPT_RT: see flows.sh churn)
missed_text() {	# missed_text FILE: sum of the "N events missed ..." lines (syscalls)
	sed -n 's/^\([0-9]*\) events missed.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'
}
missed_json() {	# missed_json FILE: "missed" of the "summary" line (flows -j)
	grep '"type":"summary"' "$1" | sed -n 's/.*"missed":\([0-9]*\).*/\1/p' |
		awk '{ m = $1 } END { print m + 0 }'
}

map_fdinfo() {	# map_fdinfo PID MAP_ID: the fdinfo of PID's fd for that map
	local f
	for f in /proc/$1/fdinfo/*; do
		grep -q "^map_id:[[:space:]]*$2\$" $f 2>/dev/null && { cat $f; return; }
	done
}

# err_case DESC PATTERN CMD...: CMD exits non-zero with one line on stderr,
# "bpfmem $ERR_TOOL: ...PATTERN..." (bad input: a clear one-line error)
err_case() {
	local desc=$1 pat=$2
	shift 2
	"$@" >/tmp/e.out 2>/tmp/e.err
	rc=$?
	[ $rc != 0 ] && [ "$(wc -l </tmp/e.err)" = 1 ] && grep -q "^bpfmem $ERR_TOOL: .*$pat" /tmp/e.err
	ok $? "error: $desc (exit $rc: $(cat /tmp/e.err))"
}
