#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The manual pages (docs/man/*.8.rst) and the tools agree, so that they cannot drift (TAP).

    tests/unit/check-man.py SRC_ROOT VERSION [BPFMEM]

For every subcommand (bpfmem_cmds of tools/meson.build), docs/man/bpfmem-CMD.8.rst
documents exactly the long and short options that `bpfmem CMD -h` lists, and those are
exactly the options its table accepts (struct bpfmem_opt opts[] of tools/CMD.c, which
tools/lib/cli.c turns into getopt_long()'s and -h's, plus -v/--verbose and -h/--help).
The help text comes from the built binary BPFMEM when given (the full build), else from
the table (the unit-only build has no binary: it needs no kernel). With the binary, a
bad option, a missing argument and an operand each give one line on stderr and exit 2;
with -j/--json (before or after it) also one JSON object {"error":...} on stdout.
bpfmem(8) names every subcommand's page and documents -h/--help and -V/--version, and
`bpfmem --version` / `-V` print the meson version.

EXAMPLES: the lines `bpfmem CMD -h` ends with (struct bpfmem_example examples[] of
tools/CMD.c in the unit-only build) are one list with the page's EXAMPLES entries that
run bpfmem (same commands, same order, the same text but for the first letter's case
and a final period): 3 to 6 of them, each running bpfmem CMD with only options -h
lists, and, with the binary, whose options the parser accepts (the example with -h
appended exits 0 printing the help; $(...) stands for this script's PID).
"""
import json
import os
import re
import shlex
import subprocess
import sys

import taplib
from taplib import ok, read

top, version = sys.argv[1], sys.argv[2]
taplib.top = top
binary = sys.argv[3] if len(sys.argv) > 3 else None


OPT = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z0-9])(?![\w-])')


def help_options(text):
    """Options defined in a help text: the lines of its option list, which start with
    an option after the indentation ("  -j, --json   ...", "      --hook HOOK ...",
    "  -4, -6   ..."); the column before the description only."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r'^ {2,}(-\S.*?)(?: {2,}|$)', line)
        if m:
            opts |= set(OPT.findall(m.group(1)))
    return opts


def page_options(rst):
    """Options of the OPTIONS section of a page: its option list, one entry per line
    that starts with '-' at column 0."""
    m = re.search(r'^OPTIONS\n=+\n(.*?)(?=^[A-Z][A-Z ]+\n=+\n|\Z)', rst, re.M | re.S)
    if not m:
        return None
    opts = set()
    for line in m.group(1).splitlines():
        if line.startswith('-'):
            head = re.split(r' {2,}', line)[0]
            opts |= set(OPT.findall(head))
    return opts


def help_examples(text):
    """(command, what) pairs of the EXAMPLES a -h text ends with (tools/lib/cli.c):
    "    COMMAND  # what" lines, or "    COMMAND" each with "        # what" under it.
    None without an EXAMPLES section; a line of neither form is an entry ('?', line)."""
    if '\nEXAMPLES:\n' not in text:
        return None
    ex = []
    for line in text.split('\nEXAMPLES:\n', 1)[1].splitlines():
        if line.startswith('        # ') and ex and ex[-1][1] is None:
            ex[-1] = (ex[-1][0], line[len('        # '):])
        elif line.startswith('    ') and line[4:5] not in ('', ' '):
            cmd, sep, what = line[4:].partition('  # ')
            ex.append((cmd.rstrip(), what if sep else None))
        else:
            ex.append(('?', line))
    return ex


def c_string(lit):
    """The value of a C string literal's body (the escapes the tables use)."""
    return re.sub(r'\\(.)', r'\1', lit)


def table_examples(src):
    """struct bpfmem_example examples[] of a tools/CMD.c: (command, what) pairs."""
    t = re.search(r'static const struct bpfmem_example examples\[\] = \{(.*?)\n\};', src, re.S)
    if not t:
        return None
    s = r'"((?:[^"\\]|\\.)*)"'
    return [(c_string(c), c_string(w)) for c, w in
            re.findall(r'\{ ' + s + r',\s*' + s + r' \}', t.group(1))]


def page_examples(rst):
    """The entries of a page's EXAMPLES section that run bpfmem: a line **COMMAND**,
    then its indented description (joined); other entries (wget ...) are left out."""
    m = re.search(r'^EXAMPLES\n=+\n(.*?)(?=^[A-Z][A-Z ]+\n=+\n|\Z)', rst, re.M | re.S)
    if not m:
        return None
    ex = []
    cur = None
    for line in m.group(1).splitlines():
        b = re.match(r'^\*\*(.*)\*\*$', line)
        if b:
            cur = [b.group(1), []] if b.group(1).startswith('bpfmem ') else None
            if cur:
                ex.append(cur)
        elif cur and line.startswith('    '):
            cur[1].append(line.strip())
        else:
            cur = None
    return [(c, ' '.join(w)) for c, w in ex]


def what_key(what):
    """An example's text, but for the first letter's case and a final period."""
    what = (what or '').strip().rstrip('.')
    return what[:1].lower() + what[1:]


def example_args(cmd):
    """The words of an example after "bpfmem CMD", up to a redirection or pipe, with
    $(...) (a PID) as this process' PID."""
    words = []
    for w in shlex.split(re.sub(r'\$\([^)]*\)', str(os.getpid()), cmd))[2:]:
        if w in ('>', '>>', '|', '<', '&&', ';'):
            break
        words.append(w)
    return words


STD_OPTS = {'-v', '--verbose', '-h', '--help'}   # tools/lib/cli.c adds them to every table


def table_options(src):
    """What the command accepts: its struct bpfmem_opt table (short letters and long
    names), and the options tools/lib/cli.c adds."""
    t = re.search(r'static const struct bpfmem_opt opts\[\] = \{(.*?)\n\t*\};', src, re.S)
    if not t:
        return None
    opts = set(STD_OPTS)
    for key, name in re.findall(r"^\t\{ ('.'|[A-Z_0-9]+), (NULL|\"[a-z0-9-]+\")", t.group(1), re.M):
        if key.startswith("'"):
            opts.add('-' + key[1])
        if name != 'NULL':
            opts.add('--' + name.strip('"'))
    return opts


# Options a command accepts without listing them in -h, each with its reason. They are
# left out of the comparison with the getopt table only (never of -h against the page).
ACCEPTED_UNLISTED = {}

main_src = read('tools/bpfmem.c')
# the subcommands: bpfmem_cmds of tools/meson.build, from which tools/bpfmem.c's table
# (cmds.h) is generated
cmds = taplib.subcommands()
ok(len(cmds) >= 7, 'subcommands of tools/meson.build (bpfmem_cmds): %s' % ' '.join(cmds))
# the pages built are bpfmem(8) and one per bpfmem_cmds entry (docs/man/meson.build)
man_meson = read('docs/man/meson.build')
ok(re.search(r"^foreach name : bpfmem_cmd_names\n  man_pages \+= 'bpfmem-' \+ name", man_meson, re.M)
   is not None, 'docs/man/meson.build builds a page per subcommand of bpfmem_cmds')
main_page = read('docs/man/bpfmem.8.rst')

for cmd in cmds:
    page_path = 'docs/man/bpfmem-%s.8.rst' % cmd
    exists = os.path.exists(os.path.join(top, page_path))
    ok(exists, '%s: page %s exists' % (cmd, page_path))
    if not exists:
        continue
    ok('**bpfmem-%s**\\ (8)' % cmd in main_page, '%s: bpfmem(8) names bpfmem-%s(8)' % (cmd, cmd))
    src = read('tools/%s.c' % cmd)
    if binary:
        r = subprocess.run([binary, cmd, '-h'], capture_output=True, text=True)
        text, where = r.stdout, '`bpfmem %s -h`' % cmd
        helped = help_options(text)
        for bad, what in (('--no-such-option', 'a bad option'), ('-%', 'a bad short option'),
                          ('operand', 'an operand')):
            r = subprocess.run([binary, cmd, bad], capture_output=True, text=True)
            ok(r.returncode == 2 and r.stderr.count('\n') == 1 and not r.stdout and
               r.stderr.startswith('bpfmem %s: ' % cmd),
               '%s: %s is one line on stderr, exit 2' % (cmd, what),
               'exit %d, stderr: %s' % (r.returncode, r.stderr))
        # under -j (before or after the bad option) the error is also one JSON object
        # on stdout, {"error": the line without its prefix}; stderr and status the same
        has_json = '--json' in helped
        for args in (['-j', '--no-such-option'], ['--no-such-option', '--json']):
            r = subprocess.run([binary, cmd] + args, capture_output=True)
            line = r.stderr.decode('utf-8', 'replace')
            want = {'error': line[len('bpfmem %s: ' % cmd):-1]}
            try:
                got = json.loads(r.stdout.decode('utf-8'), parse_constant=float)
            except ValueError:
                got = None
            if has_json:
                good = (r.returncode == 2 and line.count('\n') == 1 and got == want and
                        r.stdout.count(b'\n') == 1 and r.stdout.endswith(b'}\n'))
                what = 'the error is {"error":...} on stdout, the line on stderr, exit 2'
            else:
                good = r.returncode == 2 and not r.stdout
                what = 'no -j: nothing on stdout'
            ok(good, '%s %s: %s' % (cmd, ' '.join(args), what),
               'exit %d, stdout: %r, stderr: %r' % (r.returncode, r.stdout, r.stderr))
    else:
        text, where = '', 'the option table of tools/%s.c' % cmd
        helped = table_options(src) or set()
    ok(len(helped) > 2, '%s: options read from %s (%d)' % (cmd, where, len(helped)), text)
    documented = page_options(read(page_path))
    ok(documented is not None, '%s: the page has an OPTIONS section' % cmd)
    documented = documented or set()
    ok(helped == documented, '%s: the page documents the options of %s' % (cmd, where),
       'only in -h: %s\nonly in the page: %s' % (' '.join(sorted(helped - documented)),
                                                  ' '.join(sorted(documented - helped))))
    # EXAMPLES: one list in -h (or the table) and the page
    examples = help_examples(text) if binary else table_examples(src)
    ok(examples is not None and 3 <= len(examples) <= 6,
       '%s: %s has 3 to 6 EXAMPLES (%d)' % (cmd, where, len(examples or [])), text)
    examples = examples or []
    page_ex = page_examples(read(page_path))
    ok(page_ex is not None, '%s: the page has an EXAMPLES section' % cmd)
    page_ex = page_ex or []
    key = lambda ex: [(c, what_key(w)) for c, w in ex]
    ok(key(examples) == key(page_ex),
       '%s: the page\'s EXAMPLES are those of %s, in order' % (cmd, where),
       'in %s:\n%s\nin the page:\n%s' % (where,
           '\n'.join('  %s  # %s' % e for e in key(examples)),
           '\n'.join('  %s  # %s' % e for e in key(page_ex))))
    for c, w in examples:
        words = shlex.split(c)
        unknown = [o for o in (x.split('=')[0] for x in example_args(c)) if
                   o.startswith('-') and o not in helped]
        ok(words[:2] == ['bpfmem', cmd] and w and not unknown,
           '%s: example `%s` runs bpfmem %s with options of %s' % (cmd, c, cmd, where),
           'unknown options: %s' % ' '.join(unknown))
        if binary:
            r = subprocess.run([binary, cmd] + example_args(c) + ['-h'], capture_output=True,
                               text=True)
            ok(r.returncode == 0 and r.stdout.startswith('Usage: bpfmem %s ' % cmd) and
               not r.stderr, '%s: the parser accepts the options of `%s`' % (cmd, c),
               'exit %d, stderr: %s' % (r.returncode, r.stderr))
    accepted = table_options(src)
    for (c, o), why in sorted(ACCEPTED_UNLISTED.items()):
        if c == cmd and accepted and o in accepted and o not in helped:
            print('# known: %s' % why)
            accepted.discard(o)
    ok(accepted is not None and accepted == helped,
       '%s: %s lists what its option table accepts' % (cmd, where),
       'accepted, not in -h: %s\nin -h, not accepted: %s' % (
           ' '.join(sorted((accepted or set()) - helped)),
           ' '.join(sorted(helped - (accepted or set())))))

top_opts = page_options(main_page) or set()
ok(top_opts == {'-h', '--help', '-V', '--version'},
   'bpfmem(8) documents -h, --help, -V, --version', ' '.join(sorted(top_opts)))
for o in ('-h', '--help', '-V', '--version'):
    ok('"%s"' % o in main_src, 'tools/bpfmem.c handles %s' % o)
if binary:
    for o in ('--version', '-V'):
        r = subprocess.run([binary, o], capture_output=True, text=True)
        ok(r.returncode == 0 and r.stdout == 'bpfmem %s\n' % version,
           '`bpfmem %s` prints the meson version %s' % (o, version), r.stdout + r.stderr)
else:
    taplib.skip('`bpfmem --version`: no binary in this (unit-only) build')

taplib.done()
