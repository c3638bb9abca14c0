#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The periodic subcommands (syscalls, flows, maps, progs) wait in the one interval loop
# of the library, bpfmem_interval_next() (tools/lib/interval.c), and in no wait of their
# own; the exporter (an event loop of its own) waits in ppoll(). Those waits keep
# SIGINT/SIGTERM blocked until the wait: a Ctrl-C that lands between the exit check and
# the sleep ends it at once. A nanosleep()/sleep()/usleep() there sleeps the whole
# interval (up to a day with -i 86400). TAP.
# usage: check-waits.sh SOURCE_ROOT
top=$1
n=0
fail=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
code() {	# code lines only: not the comments
	sed -e 's|/\*.*\*/||g' -e '/^[[:space:]]*\*/d' -e '/^[[:space:]]*\/\*/d' "$top/$1"
}
for f in tools/syscalls.c tools/flows.c tools/maps.c tools/progs.c tools/exporter.c; do
	hits=$(code $f | grep -n '\b\(nanosleep\|usleep\|sleep\|clock_nanosleep\)[[:space:]]*(')
	[ -z "$hits" ]
	ok $? "$f: no nanosleep/sleep/usleep (waits through bpfmem_wait or ppoll)${hits:+: $hits}"
done
for f in tools/syscalls.c tools/flows.c tools/maps.c tools/progs.c; do
	code $f | grep -q 'bpfmem_interval_next(' &&
		! code $f | grep -q '\bbpfmem_wait\(_fd\)\{0,1\}[[:space:]]*('
	ok $? "$f: its interval loop is bpfmem_interval_next(), no wait of its own"
done
echo "1..$n"
exit $fail
