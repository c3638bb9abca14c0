# SPDX-License-Identifier: GPL-2.0
# KUnit results of the boot (KTAP on the console/dmesg): each test case of each
# suite becomes one TAP result here. With the bpfmem series present, the
# bpf_mem_alloc suite must have run.
. /tests/lib.sh
dmesg | sed -e 's/^\[[^]]*\] //' >/tmp/ktap.txt

awk '
/^    # Subtest: / { suite = $3; next }
/^# Subtest: / { suite = $3; next }
suite != "" && /^    (not )?ok [0-9]+ / {
	res = ($1 == "not") ? "not ok" : "ok"
	line = $0
	sub(/^    (not )?ok [0-9]+ /, "", line)
	name = line; skip = ""
	if (index(line, " # SKIP")) { name = substr(line, 1, index(line, " # SKIP") - 1); skip = substr(line, index(line, " # SKIP")) }
	print res "|" suite "." name "|" skip
}
/^(not )?ok [0-9]+ / { suite = "" }
' /tmp/ktap.txt >/tmp/kunit-cases.txt
# what the bpf_mem_alloc cases report with kunit_info() (figures, not checks)
grep '^ *# bpf_ma_test_[a-z_]*: [a-z]' /tmp/ktap.txt | grep -v 'EXPECTATION\|ASSERTION\|pass:' |
	sed 's/^ */# /'

while IFS='|' read -r res name skipr; do
	if [ -n "$skipr" ]; then
		skip "kunit $name" "${skipr# # SKIP}"
	elif [ "$res" = ok ]; then
		ok 0 "kunit $name"
	else
		ok 1 "kunit $name"
	fi
done </tmp/kunit-cases.txt

if bpfmem probe | grep -q '^bpfmem series: *yes'; then
	grep -q '^\(    \)\?# Subtest: bpf_mem' /tmp/ktap.txt
	ok $? "bpf_mem_alloc KUnit suite ran at boot"
	grep -q '^\(    \)\?# Subtest: bpf_mem' /tmp/ktap.txt || grep -i -A3 'kunit' /tmp/ktap.txt | head -20 | sed 's/^/#   /'
else
	skip "bpf_mem_alloc KUnit suite ran at boot" "kernel without the bpfmem series"
fi
done_testing
