#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The exposition of tools/collect/prom_schema.c (what `bpfmem maps --prometheus` and the exporter
# write) for a sample with odd label values, checked by promtool (TAP).
# usage: prom-lint.sh TEST_PROM_BINARY
t=$(mktemp -d /tmp/bpfmem-promlint.XXXXXX)
trap 'rm -rf "$t"' EXIT
"$1" --dump >"$t/m.txt"
echo "# $(grep -vc '^#' "$t/m.txt") samples"
promtool check metrics <"$t/m.txt" >"$t/lint.txt" 2>&1
rc=$?
sed 's/^/# promtool: /' "$t/lint.txt"
if [ $rc = 0 ] && [ ! -s "$t/lint.txt" ]; then
	echo "ok 1 - promtool check metrics: clean"
else
	echo "not ok 1 - promtool check metrics: exit $rc"
fi
echo "1..1"
