# SPDX-License-Identifier: GPL-2.0
# TAP for host test scripts (bash): source it, call ok, print "1..$n" at the end and
# exit non-zero if $fails. Guest scripts use tests/guest/lib.sh.
n=0 fails=0
ok() {	# ok STATUS DESCRIPTION [DETAIL]: DETAIL's last 40 lines as comments on failure
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
		[ -n "${3:-}" ] && printf '%s\n' "$3" | tail -n 40 | sed 's/^/#   /'
	fi
}
