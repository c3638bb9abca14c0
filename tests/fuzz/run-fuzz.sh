#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the libFuzzer target tests/fuzz/fuzz_NAME.c with clang (ASan, UBSan, no
# recovery) and the tools/lib sources it needs, then runs it for a bounded time on a
# copy of its committed seed corpus (tests/fuzz/corpus/NAME; the copy takes the inputs
# the run adds, the committed corpus stays as it is).
#
#   tests/fuzz/run-fuzz.sh NAME [BUILD_DIR [SECONDS]]
#
# Exit 0 when the run ends without a finding; non-zero when the fuzzer found a crash,
# a sanitizer report, a timeout or a property violation (the target aborts), or the
# target does not build. The input that failed is kept as BUILD_DIR/fuzz-NAME/crash-*:
# `BUILD_DIR/fuzz-NAME/fuzz_NAME FILE` replays it.
set -euo pipefail

name=${1:?usage: run-fuzz.sh NAME [BUILD_DIR [SECONDS]]}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$top/build-fuzz}/fuzz-$name
secs=${3:-8}
lib=$top/tools/lib

# the tools/lib files each target uses besides common.c, json.c and buf.c
case "$name" in
http) srcs="http.c" ;;
prom) srcs="prom_text.c" ;;
json) srcs="" ;;
kfile) srcs="fileio.c cgroup.c" ;;	# fdinfo.c: included by the target (its field())
cli) srcs="cli.c opts.c" ;;
*) echo "run-fuzz.sh: unknown target '$name'" >&2; exit 2 ;;
esac

mkdir -p "$out"
rm -rf "$out/corpus" "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*
cp -r "$top/tests/fuzz/corpus/$name" "$out/corpus"
bin=$out/fuzz_$name
# shellcheck disable=SC2086
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I "$lib" -o "$bin" "$top/tests/fuzz/fuzz_$name.c" \
	$(for f in common.c json.c buf.c $srcs; do echo "$lib/$f"; done) -lm
echo "fuzz_$name: $(find "$out/corpus" -type f | wc -l) seeds, ${secs}s"
# -close_fd_mask=1: the option parser's -h text on stdout is not the log's
# -error_exitcode: libFuzzer's default, 77, is a skipped test to meson
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=9000 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$out/" "$out/corpus" 2>&1 |
	# without the progress lines, the dictionary and the option parser's error lines
	awk '!/^#[0-9]+\t+(NEW|REDUCE|pulse)/ && !/^bpfmem: / && !/^"/ && !/ dictionary/'
