# SPDX-License-Identifier: GPL-2.0
# The bpfmem demo, run inside the guest by `./run demo`. Each scenario is a file in
# /examples/demo.d, run in name order; a failing scenario fails the demo.
rc=0
for s in /examples/demo.d/*.sh; do
	echo
	echo "=== $(sed -n 's/^# demo: //p' "$s" | head -n1) ==="
	sh "$s" || { echo "demo scenario $s failed"; rc=1; }
done
exit $rc
