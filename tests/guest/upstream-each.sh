# SPDX-License-Identifier: GPL-2.0
# Sourced by upstream.sh and upstream-ab.sh (guest; cwd: the stage directory of
# test_progs). 6.12's test_progs has no watchdog: one test that does not finish stops
# the whole run (on the gate's TCG kernels verifier_loops1 and verifier_search_pruning
# take 300 s and more). progs_each runs each test of a selection in its own
# `test_progs -a NAME` under a timeout, so every test reports, and a test past the
# timeout is a failing case NAME:TIMEOUT (a line "#0 NAME:TIMEOUT:FAIL" in the log).
#
#   progs_each [SELECTION]    SELECTION: test_progs -t's comma list (all tests if empty)
# Writes /tmp/up.log (every run's output), /tmp/up.fail (failing tests and subtests, and
# NAME:TIMEOUT), /tmp/up.ran (tests that reported), /tmp/up.sum (one line, the summary
# in test_progs' own format: "Summary: TESTS/SUBTESTS PASSED, N SKIPPED, N FAILED", the
# timeouts counted as failed); prints "# time NAME SECONDS" per test. Sets each_n (tests
# selected) and each_to (timed out). PROGS_TIMEOUT: seconds per test (default 300: the
# slowest test that finishes took 11 s on the gate's base kernel, 145 s on Debian's).

# the gate's subset: PROGS_SUBSET of upstream.sh
progs_subset() {
	awk '/^PROGS_SUBSET=/ { on = 1 } on { l = l $0; if ($0 !~ /\\$/) exit }
		END { gsub(/\\/, "", l); sub(/^PROGS_SUBSET=/, "", l); print l }' /tests/upstream.sh
}

progs_each() {
	local t a b rc
	if [ -n "$1" ]; then
		./test_progs -t "$1" -l >/tmp/up.list 2>&1
	else
		./test_progs -l >/tmp/up.list 2>&1
	fi
	each_tests=$(grep -E '^[A-Za-z_0-9]+$' /tmp/up.list | sort -u)
	each_n=$(echo "$each_tests" | grep -c .)
	: >/tmp/up.log
	: >/tmp/up.timeout
	for t in $each_tests; do
		a=$(cut -d' ' -f1 /proc/uptime)
		timeout -s KILL "${PROGS_TIMEOUT:-300}" ./test_progs -a "$t" </dev/null >/tmp/up.one 2>&1
		rc=$?
		b=$(cut -d' ' -f1 /proc/uptime)
		cat /tmp/up.one >>/tmp/up.log
		echo "# time $t $(awk "BEGIN { printf \"%.0f\", $b - $a }")"
		if [ $rc = 137 ]; then
			echo "$t:TIMEOUT" >>/tmp/up.timeout
			echo "#0 $t:TIMEOUT:FAIL" >>/tmp/up.log
		fi
	done
	each_to=$(wc -l </tmp/up.timeout)
	# "#123     name:FAIL", "#123/4   name/sub name:FAIL" (a subtest's name may have
	# spaces and colons)
	sed -n -E 's/^#[0-9]+(\/[0-9]+)? +(.+):FAIL$/\2/p' /tmp/up.log | sort -u >/tmp/up.fail
	sed -n -E 's/^#[1-9][0-9]* +([^ /]+):(OK|FAIL|SKIP).*/\1/p' /tmp/up.log | sort -u >/tmp/up.ran
	# one run's "Summary: 1/3 PASSED, 0 SKIPPED, 0 FAILED": summed over the runs
	sed -n -E 's/^Summary: ([0-9]+)\/([0-9]+) PASSED, ([0-9]+) SKIPPED, ([0-9]+) FAILED.*/\1 \2 \3 \4/p' \
		/tmp/up.log | awk -v to="$each_to" '{ p += $1; s += $2; k += $3; f += $4 }
		END { printf "Summary: %d/%d PASSED, %d SKIPPED, %d FAILED\n", p, s, k, f + to }' >/tmp/up.sum
}
