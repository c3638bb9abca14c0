#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The subcommands are one list, bpfmem_cmds of tools/meson.build, and everything else
# follows it (TAP): a subcommand added (or removed) in one place only fails here.
#   tools/*.c           the files that define int cmd_NAME(...) are exactly the list's
#   docs/man            the pages bpfmem-NAME.8.rst are exactly the list's (meson builds
#                       and installs a page per entry: a page not in it would not be)
#   bpfmem -h           its "Commands:" are the list, in its order (with the CLI built)
#   written once        no build, test or packaging file writes the whole list again
#                       (every subcommand named within three lines): they take it from
#                       bpfmem_cmds (docs/man/meson.build, tests/unit/meson.build) or
#                       from `bpfmem -h` (tests/deb-build.sh, tools/dist/bpfmem.bash)
#
#   tests/unit/check-subcommands.sh SRC_ROOT bpfmem|'' SUBCOMMAND...
#
# The SUBCOMMANDs are bpfmem_cmds' names, passed by tests/unit/meson.build.
set -uo pipefail

top=$1 bin=$2
shift 2
cmds=("$@")
. "$top/tests/tap.sh"

want=$(printf '%s\n' "${cmds[@]}" | sort)
[ ${#cmds[@]} -ge 1 ] && [ "$(printf '%s\n' "${cmds[@]}" | sort -u)" = "$want" ]
ok $? "bpfmem_cmds of tools/meson.build: ${cmds[*]}"

got=$(cd "$top/tools" && sed -n 's/^int cmd_\([a-z_]*\)(.*/\1/p' *.c | sort)
[ "$got" = "$want" ]
ok $? "tools/*.c define cmd_NAME for exactly the subcommands of bpfmem_cmds" \
	"$(diff <(echo "$want") <(echo "$got"))"

got=$(cd "$top/docs/man" && ls bpfmem-*.8.rst | sed 's/^bpfmem-\(.*\)\.8\.rst$/\1/' | sort)
[ "$got" = "$want" ]
ok $? "docs/man/bpfmem-NAME.8.rst: a page for exactly the subcommands of bpfmem_cmds" \
	"$(diff <(echo "$want") <(echo "$got"))"

if [ -n "$bin" ]; then
	got=$("$bin" -h | sed -n '/^Commands:/,$s/^  \([a-z]\+\) .*/\1/p')
	[ "$got" = "$(printf '%s\n' "${cmds[@]}")" ]
	ok $? "bpfmem -h lists the subcommands of bpfmem_cmds, in its order" \
		"$(diff <(printf '%s\n' "${cmds[@]}") <(echo "$got"))"
else
	n=$((n + 1)); echo "ok $n - # SKIP bpfmem -h: this unit-only build has no CLI"
fi

# every tracked build, test and packaging file but prose (the manual pages and docs
# name the subcommands to document them)
files=$(cd "$top" && git ls-files -- '*meson.build' '*.sh' '*.py' '*.bash' '*.c' '*.h' \
	'debian/*' 'run' ':!kernel' ':!skel' 2>/dev/null)
if [ -z "$files" ]; then
	n=$((n + 1)); echo "ok $n - # SKIP no git checkout: the files are not known"
else
	hits=$(cd "$top" && printf '%s\n' "$files" | while read -r f; do
		[ -f "$f" ] || continue
		awk -v names="${cmds[*]}" -v f="$f" '
			BEGIN { k = split(names, want, " ") }
			{ w[NR % 3] = $0
			  s = w[0] " " w[1] " " w[2]
			  for (i = 1; i <= k; i++)
				if (s !~ ("(^|[^a-z_])" want[i] "([^a-z_]|$)"))
					next
			  print f ":" NR; exit }' "$f"
	done)
	[ -z "$hits" ]
	ok $? "no build, test or packaging file writes the list of subcommands again" \
		"every subcommand named within three lines of: $hits"
fi

echo "1..$n"
[ "$fails" = 0 ]
