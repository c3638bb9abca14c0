# SPDX-License-Identifier: GPL-2.0
# Guest test: the UPSTREAM BPF selftest test_maps of the bpfmem kernel tree, unmodified
# (built on the host by tests/selftests-build.sh, passed with --add of its directory).
#   sh /tests/test_maps.sh FLAVOUR
# test_maps is one binary: the core map tests (run twice: preallocated and
# BPF_F_NO_PREALLOC) print nothing and exit on the first failure; the map_tests/ print
# "NAME:PASS" or "NAME SKIP (reason)"; the last line is "test_maps: OK, N SKIPPED".
# Each of those becomes a TAP line; a failure prints the FAIL line and the output tail.
. /tests/lib.sh
flavour=${1:-base}
dir=/usr/share/bpfmem/selftests-bpf

if [ ! -x "$dir/test_maps" ]; then
	ok 1 "test_maps staged in $dir (run tests/selftests-build.sh, --add its stage dir)"
	done_testing
fi

# libbpf resolves __kconfig externs (read_bpf_task_storage_busy: CONFIG_PREEMPT) from
# /boot/config-$(uname -r); the guest has no /proc/config.gz. selftests-build.sh stages
# the .config of every built kernel with its uname -v.
kcfg=""
for u in "$dir"/kconfig/*.uts; do
	[ -f "$u" ] && [ "$(cat "$u")" = "$(uname -v)" ] && kcfg=${u%.uts}.config
done
if [ -n "$kcfg" ] || [ -f /proc/config.gz ]; then
	src=/proc/config.gz
	if [ -n "$kcfg" ]; then
		mkdir -p /boot && cp "$kcfg" "/boot/config-$(uname -r)"
		src="staged $(basename "$kcfg")"
	fi
	ok 0 "kernel config for libbpf __kconfig ($src)"
else
	ok 1 "kernel config for libbpf __kconfig: none staged matches '$(uname -v)'; rerun tests/selftests-build.sh"
fi

cd "$dir" || exit 1
t0=$(cut -d' ' -f1 /proc/uptime)
./test_maps >/tmp/test_maps.log 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "# test_maps ($flavour) exit status $rc after $(awk "BEGIN { print $t1 - $t0 }")s"

# sub-tests that reported, in order
grep -E '^[A-Za-z0-9_]+:PASS| SKIP \(' /tmp/test_maps.log >/tmp/test_maps.sub
while IFS= read -r l; do
	case "$l" in
	*" SKIP ("*) skip "${l%% SKIP*}" "${l#* SKIP }" ;;
	*) ok 0 "${l%%:PASS*}${l#*:PASS}" ;;
	esac
done </tmp/test_maps.sub

if [ "$rc" = 0 ] && grep -q '^test_maps: OK, [0-9]* SKIPPED' /tmp/test_maps.log; then
	ok 0 "test_maps core map tests, preallocated + BPF_F_NO_PREALLOC ($(grep '^test_maps: OK' /tmp/test_maps.log))"
else
	fail=$(grep -m1 -E ':FAIL:|^Failed|failed' /tmp/test_maps.log)
	ok 1 "test_maps (exit $rc): ${fail:-no OK line}"
	tail -n 30 /tmp/test_maps.log | sed 's/^/#   /'
fi
done_testing
