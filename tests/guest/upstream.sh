# SPDX-License-Identifier: GPL-2.0
# Guest test: upstream's own BPF selftests test_verifier and test_progs, built unmodified
# from the bpfmem kernel tree by tests/selftests-build.sh (passed with --add of its
# stage directory), on the kernel this guest booted: patched or vanilla, base or rt.
#   sh /tests/upstream.sh verifier|progs|progs-full KERNEL
# KERNEL names the committed list of tests that fail on the VANILLA kernel of that
# flavour, tests/upstream/SUITE-FLAVOUR.known ("NAME  # reason"), which the gate holds
# every run to: a failure not on the list fails the test (on a patched kernel it is a
# regression of the series; on a vanilla kernel the list is out of date), a listed test
# that passes is reported. Prints TAP, and one summary line per suite:
#   "# upstream test_verifier (KERNEL): N passed, N failed, N skipped".
. /tests/lib.sh
suite=${1:-verifier}
kernel=${2:-base}
flavour=${kernel#vanilla-}
[ "$kernel" = vanilla ] && flavour=base
dir=/usr/share/bpfmem/upstream-bpf
# progs-full has its own list (all of test_progs), progs the subset's
known=/tests/upstream/$suite-$flavour.known

# The test_progs subset of the gate: what the series touches. Hash/LRU/percpu maps and
# their memory, timers and iteration over maps, ring buffers, local storage;
# trampolines and attachment (fentry/fexit, fmod_ret in modify_return, freplace in
# fexit_bpf2bpf, trampoline_count, recursion, missed); and the verifier's own suite
# (prog_tests/verifier.c).
# test_progs' -t matches names that contain any of these.
PROGS_SUBSET=htab,lru,percpu_alloc,map_kptr,timer,for_each,bpf_loop,ringbuf,local_storage,\
bpf_ma,fentry,fexit,modify_return,trampoline_count,recursion,missed,verifier

runner=test_progs
[ "$suite" = verifier ] && runner=test_verifier
[ -x "$dir/$runner" ] || {
	ok 1 "$runner staged in $dir (tests/selftests-build.sh, without --gate for test_progs; --add its stage dir)"
	done_testing
}
[ -f "$known" ] || { ok 1 "list of vanilla failures $known"; done_testing; }

# libbpf resolves __kconfig externs from /boot/config-$(uname -r); the modules
# (bpf_testmod.ko & co) must be the ones built against this very kernel: both are
# staged per kernel by selftests-build.sh, found by uname -v
match=""
for u in "$dir"/kconfig/*.uts; do
	[ -f "$u" ] && [ "$(cat "$u")" = "$(uname -v)" ] && match=${u%.uts}
done
if [ -n "$match" ] && [ -d "$match.kmod" ]; then
	mkdir -p /boot && cp "$match.config" "/boot/config-$(uname -r)"
	cp "$match.kmod"/*.ko "$dir/"
	ok 0 "kernel config and modules built for this kernel ($(basename "$match"))"
else
	ok 1 "no kernel config/modules staged for '$(uname -v)'; rerun tests/selftests-build.sh"
	done_testing
fi
mkdir -p /sys/fs/bpf
mount -t bpf bpffs /sys/fs/bpf 2>/dev/null
ulimit -l unlimited 2>/dev/null
# the unprivileged cases (test_verifier's "/u", test_progs' __msg_unpriv) run only when
# unprivileged BPF is allowed; 6.12 defaults to 2 (off, may be turned on by root)
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null
ok "$([ "$(cat /proc/sys/kernel/unprivileged_bpf_disabled)" = 0 ] && echo 0 || echo 1)" \
	"unprivileged BPF allowed for the unprivileged cases"

# keep a test's own output from looking like a kernel splat to the harness's scan of
# the console (real splats are in dmesg, which /init scans)
defuse() { sed -E 's/(BUG|WARNING|KASAN|UBSAN|Oops|INFO):/\1;/g; s/Kernel panic/Kernel-panic/; s/^/#   /'; }

cd "$dir" || exit 1
t0=$(cut -d' ' -f1 /proc/uptime)
case "$suite" in
verifier)
	name=test_verifier
	./test_verifier >/tmp/up.log 2>&1
	rc=$?
	# "#12/p descr OK" / "#12/u descr FAIL..." (the same binary on every kernel: the
	# number and description name a case, listed as "12/p descr")
	sed -n -E 's/^#([0-9]+\/[up] .*) (FAIL.*)$/\1/p' /tmp/up.log | sort -u >/tmp/up.fail
	# the runner really ran: every case 0..N printed its privileged result
	sed -n -E 's/^#([0-9]+)\/p .*/\1/p' /tmp/up.log | sort -un >/tmp/up.ran
	ran=$(wc -l </tmp/up.ran)
	last=$(tail -n 1 /tmp/up.ran)
	[ "$ran" -gt 0 ] && [ "$last" = $((ran - 1)) ]
	ok $? "$name ran every case it has, 0..$last, privileged ($ran)"
	;;
progs|progs-full)
	name=test_progs
	# each test in its own test_progs under a timeout (tests/guest/upstream-each.sh:
	# 6.12's runner has no watchdog, and one test that does not finish stops a run)
	. /tests/upstream-each.sh
	sel=$(progs_subset)
	[ "$suite" = progs-full ] && sel=""
	progs_each "$sel"
	rc=0
	# the runner really ran: every name of the subset matched a test that reported
	missing=""
	if [ -n "$sel" ]; then
		for t in $(echo "$sel" | tr ',' ' '); do
			grep -qF "$t" /tmp/up.ran || grep -qF "$t:TIMEOUT" /tmp/up.timeout ||
				missing="$missing $t"
		done
	fi
	[ -s /tmp/up.ran ] && [ -z "$missing" ] && [ $(($(wc -l </tmp/up.ran) + each_to)) -ge "$each_n" ]
	ok $? "$name ran $each_n tests, each alone: $(wc -l </tmp/up.ran) reported, $each_to past ${PROGS_TIMEOUT:-300} s, some for every name of the subset${missing:+ (none for:$missing)}"
	;;
*)
	ok 1 "unknown suite '$suite' (verifier, progs, progs-full)"
	done_testing ;;
esac
# "Summary: 775 PASSED, 0 SKIPPED, 15 FAILED" (test_progs: "109/1775 PASSED, ...", the
# sum of its runs in /tmp/up.sum)
if [ "$name" = test_progs ]; then
	sum=$(grep -m1 '^Summary:' /tmp/up.sum)
else
	sum=$(grep -m1 '^Summary:' /tmp/up.log)
fi
passed=$(echo "$sum" | sed -n -E 's/^Summary: ([0-9]+)(\/[0-9]+)? PASSED.*/\1/p')
skipped=$(echo "$sum" | sed -n -E 's/.* ([0-9]+) SKIPPED.*/\1/p')
failed=$(echo "$sum" | sed -n -E 's/.* ([0-9]+) FAILED.*/\1/p')
t1=$(cut -d' ' -f1 /proc/uptime)
secs=$(awk "BEGIN { printf \"%.0f\", $t1 - $t0 }")
if [ -z "$sum" ]; then
	ok 1 "$name ran to its summary (exit $rc after ${secs}s)"
	tail -n 40 /tmp/up.log | defuse
	done_testing
fi
echo "# upstream $name ($kernel): $passed passed, $failed failed, $skipped skipped (${secs}s)"
ok 0 "$name ran: $sum (exit $rc, ${secs}s)"

# the known (vanilla) failures: "NAME  # reason"
sed -E '/^#/d; s/[[:space:]]+#.*$//; /^[[:space:]]*$/d' "$known" | sort -u >/tmp/up.known
# tests that fail at random on the kernels of a flavour, with the reason and the
# measured rates (SUITE-FLAVOUR.flaky, same format): a failure of one is rerun alone,
# up to twice, and passes if a rerun passes; it is printed as FLAKY, never hidden
flaky=${known%.known}.flaky
sed -E '/^#/d; s/[[:space:]]+#.*$//; /^[[:space:]]*$/d' "$flaky" 2>/dev/null | sort -u >/tmp/up.flaky
rerun() {
	for reruns in 1 2; do
		timeout -s KILL "${PROGS_TIMEOUT:-300}" ./test_progs -a "$1" </dev/null \
			>/tmp/up.rerun 2>&1 && return 0
	done
	return 1
}
n_new=0
while IFS= read -r t; do
	if grep -qxF "$t" /tmp/up.known; then
		reason=$(awk -v t="$t" -F '  # ' '$1 == t { print $2; exit }' "$known")
		ok 0 "$name: $t fails on vanilla too # SKIP known: $reason"
	elif [ "$name" = test_progs ] && grep -qxF "$t" /tmp/up.flaky && rerun "$t"; then
		reason=$(awk -v t="$t" -F '  # ' '$1 == t { print $2; exit }' "$flaky")
		echo "# $name: FLAKY $t failed, then passed on rerun $reruns ($flaky)"
		ok 0 "$name: $t failed, passed on rerun $reruns # SKIP flaky on $kernel: $reason"
	else
		n_new=$((n_new + 1))
		ok 1 "$name: $t FAILED, and it is not a known vanilla failure ($known)"
	fi
done </tmp/up.fail
# known failures that passed here: not a failure, but the list may be stale
grep -vxF -f /tmp/up.fail /tmp/up.known >/tmp/up.fixed
while IFS= read -r t; do
	# a subset run does not run every listed test: only report those it ran
	if grep -qF " $t:" /tmp/up.log || grep -qF "$t " /tmp/up.log; then
		echo "# $name: listed vanilla failure passed on $kernel: $t"
	fi
done </tmp/up.fixed
# a new failure: the runner's result and error lines, for the log (at most 400: the
# serial console of an rt guest under TCG prints a few lines a second)
if [ "$n_new" != 0 ]; then
	echo "# ---- $name results and errors ----"
	grep -E ':FAIL|FAIL$| FAIL|EXPECTED|libbpf: |unexpected|is not |not found' /tmp/up.log |
		head -n 400 | defuse
	echo "# ---- end of $name results and errors ----"
fi
ok "$([ "$n_new" = 0 ] && echo 0 || echo 1)" \
	"$name on $kernel: no failure beyond the $(wc -l </tmp/up.known) known on vanilla ($n_new new)"
done_testing
