#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The committed vanilla results of the upstream selftests (tests/guest/upstream/
# SUITE-FLAVOUR.known) are what the default gate holds the patched kernels to, without
# booting a vanilla kernel. Each list carries the stamp of what it was measured on:
#   "# stamp: vanilla kernel KEY, tests SHA"
# KEY is kernel/build.sh's build key of the vanilla kernel of that flavour (Debian
# tree version + config fragments), SHA a hash of the test runners (upstream.sh and
# its test_progs runner upstream-each.sh) and the selftests build script. When either
# changes, the lists are stale and this check fails until they are measured again
# (./run test upstream-vanilla, then tests/upstream-known.py).
#
#   tests/upstream-stamp.sh print FLAVOUR     the stamp of the current tree
#   tests/upstream-stamp.sh check FLAVOUR [SUITE...]
#                                  TAP: the lists of FLAVOUR (verifier and progs, or the
#                                  SUITEs named) have it
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
flavour=${2:-}
case "$mode:$flavour" in print:base|print:rt|check:base|check:rt) ;; *)
	echo "usage: upstream-stamp.sh print|check base|rt" >&2; exit 2 ;;
esac
stamp() {
	local key sha
	key=$("$top/kernel/build.sh" --vanilla --flavor "$flavour" --print-key) || return 1
	sha=$(cat "$top/tests/guest/upstream.sh" "$top/tests/guest/upstream-each.sh" \
		"$top/tests/selftests-build.sh" | sha256sum | cut -c1-16)
	echo "vanilla kernel $key, tests $sha"
}
if [ "$mode" = print ]; then stamp; exit; fi
want=$(stamp) || { echo "1..1"; echo "not ok 1 - cannot compute the vanilla build key"; exit 1; }
shift 2
suites=${*:-verifier progs}
echo "1..$(echo $suites | wc -w)"
n=0 bad=0
for suite in $suites; do
	n=$((n + 1))
	f=$top/tests/guest/upstream/$suite-$flavour.known
	have=$(sed -n 's/^# stamp: //p' "$f" 2>/dev/null)
	if [ "$have" = "$want" ]; then
		echo "ok $n - $suite-$flavour.known measured on the current vanilla kernel and tests ($want)"
	else
		echo "not ok $n - $suite-$flavour.known is stale: stamped '${have:-none}', now '$want' (./run test upstream-vanilla; tests/upstream-known.py)"
		bad=1
	fi
done
exit $bad
