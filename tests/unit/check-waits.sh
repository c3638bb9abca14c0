#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The interval loops of bpfmem maps, progs and exporter wait in bpfmem_wait() or ppoll()
# with SIGINT/SIGTERM blocked until the wait (tools/lib/interval.c): a Ctrl-C that lands
# between the exit check and the sleep ends it at once. A nanosleep()/sleep()/usleep()
# there sleeps the whole interval (up to a day with -i 86400). TAP.
# usage: check-waits.sh SOURCE_ROOT
top=$1
n=0
fail=0
for f in tools/maps.c tools/progs.c tools/exporter.c; do
	n=$((n + 1))
	# code lines only: not the comments
	hits=$(sed -e 's|/\*.*\*/||g' -e '/^[[:space:]]*\*/d' -e '/^[[:space:]]*\/\*/d' "$top/$f" |
		grep -n '\b\(nanosleep\|usleep\|sleep\|clock_nanosleep\)[[:space:]]*(' )
	if [ -z "$hits" ]; then
		echo "ok $n - $f: no nanosleep/sleep/usleep (waits through bpfmem_wait or ppoll)"
	else
		echo "not ok $n - $f sleeps where a signal can be missed: $hits"
		fail=1
	fi
done
echo "1..$n"
exit $fail
