#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "What Debian's users would get": upstream test_verifier on the series built from
# Debian's whole cloud-amd64 config (kernel distro, ./run build distro) and on Debian's
# own binary of the same version (deb612-cloud), one guest after the other; TAP.
# Fails when a case fails on the patched kernel and passes on Debian's, or when either
# side did not run every case.
#   tests/distro-ab.sh LOGDIR UPSTREAM_STAGE
top=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:?LOGDIR}
stage=${2:?UPSTREAM_STAGE}
n=0 bad=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else bad=1; echo "not ok $n - $2"; fi; }
mkdir -p "$logs"
for k in deb612-cloud distro; do
	"$top/tests/harness/harness.sh" --kernel "$k" --smp 2 --mem 2048 --timeout 1500 \
		--log "$logs/guest-distro-ab-$k.log" --add "$stage" --add "$stage/test_verifier" \
		-- sh /tests/upstream-ab.sh "$k" >"$logs/distro-ab-$k.tap" 2>&1
	ok $? "test_verifier on $k: guest verdict ($logs/guest-distro-ab-$k.log)"
	grep -a '^# upstream test_verifier' "$logs/distro-ab-$k.tap" | sed 's/^# /# /'
	sed -n 's/^# ab-fail: //p' "$logs/distro-ab-$k.tap" | sort -u >"$logs/distro-ab-$k.fail"
done
new=$(grep -vxF -f "$logs/distro-ab-deb612-cloud.fail" "$logs/distro-ab-distro.fail")
fixed=$(grep -vxF -f "$logs/distro-ab-distro.fail" "$logs/distro-ab-deb612-cloud.fail")
[ -n "$fixed" ] && echo "$fixed" | sed 's/^/# passes on distro, fails on deb612-cloud: /'
[ -n "$new" ] && echo "$new" | sed 's/^/# FAILS on distro only: /'
[ -z "$new" ]
ok $? "test_verifier: no case fails on the series (Debian's config) that passes on Debian's binary ($(echo "$new" | grep -c .) new, $(wc -l <"$logs/distro-ab-distro.fail") vs $(wc -l <"$logs/distro-ab-deb612-cloud.fail") failing)"
echo "1..$n"
exit $bad
