#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/contributing.md walks a newcomer through adding a subcommand, a BPF program, a
guest test, a benchmark and a kernel patch; this keeps the walk true (TAP):

    tests/unit/check-contributing.py SRC_ROOT

  paths      every `path` it names (with a '/' or a file name's extension) exists: a
             NAME, NNNN-subject, CMD or FLAVOUR in it stands for any name (the
             directory must exist, and a file must match where the name is in the
             file's), `*` globs; a bare file name (`fdinfo.c`) is a file of the tree;
             guest paths (/tests/..., /bench/...) are those of the harness's copies
  lists      every "`LIST` of `FILE`" is a list that FILE assigns (LIST = ...)
  tests      every "unit test `NAME`" / "meson tests `A` and `B`" is a test() of a
             meson.build (tests/unit/meson.build for unit tests)
  ./run      every `./run WORD ...` is a command ./run dispatches (a "WORD)" case)
  the table  the subcommand table it names, bpfmem_cmds of tools/meson.build, is the
             one meson generates cmds.h (tools/bpfmem.c's table) and the pages from
"""
import glob
import os
import re
import subprocess
import sys

import taplib
from taplib import ok, read

top = taplib.top = sys.argv[1]


doc = read('docs/contributing.md')
ticks = re.findall(r'`([^`\n]+)`', doc)
links = [l for l in re.findall(r'\]\(([^)#]+)', doc) if '://' not in l]
PLACEHOLDER = re.compile(r'NAME|NNNN-subject|CMD|FLAVOUR')
EXT = re.compile(r'\.(c|h|sh|py|md|rst|json|build|re|patch|txt|config|in)$')
GUEST = {'/tests/': 'tests/guest/', '/bench/': 'tests/bench/guest/'}

try:
    tracked = subprocess.run(['git', '-C', top, 'ls-files'], capture_output=True,
                             text=True, check=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    tracked = []
basenames = {os.path.basename(f) for f in tracked}


def path_exists(p):
    for g, host in GUEST.items():
        if p.startswith(g):
            p = host + p[len(g):]
            break
    else:
        if p.startswith('/'):
            return None     # a guest system path (/usr/bin, /init): not the tree's
    p = p.rstrip('/') if p != '/' else p
    if PLACEHOLDER.search(p) or '*' in p:
        pattern = PLACEHOLDER.sub('*', p)
        return bool(glob.glob(os.path.join(top, pattern))) or \
            os.path.isdir(os.path.join(top, os.path.dirname(pattern.split('*')[0])))
    return os.path.exists(os.path.join(top, p))


checked = set()
for t in ticks + links:
    words = t.split()
    if not words:
        continue
    cand = []
    if len(words) == 1:
        w = words[0].rstrip('.,;:')
        if w.startswith('"') and w.endswith('"'):   # an #include of a BPF program
            w = 'bpf/' + w.strip('"')
        if w.startswith('../'):
            w = os.path.normpath(os.path.join('docs', w))
        if '/' in w and re.match(r'^[\w./*-]+$', w) and w != './run':
            cand.append(w)
        elif EXT.search(w) and re.match(r'^[\w.-]+$', w) and w not in checked:
            checked.add(w)
            # a generated file by its template (cmds.h: cmds.h.in); NAME.h: any header
            pat = re.compile('^' + PLACEHOLDER.sub(r'\\w+', re.escape(w)) + '(\\.in)?$')
            ok(not tracked or any(pat.match(b) for b in basenames) or
               w.endswith('.skel.h'), 'the tree has a file `%s`' % w)
    else:
        # commands: paths among their words (sh /tests/NAME.sh, ./run exec -- sh /bench/..)
        cand += [x for x in words[1:] if x.startswith('/') and x.count('/') > 1 and
                 x.split('/')[1] in ('tests', 'bench')]
    for p in cand:
        if p in checked:
            continue
        checked.add(p)
        e = path_exists(p)
        if e is not None:
            ok(e, 'the path `%s` exists' % p)

# "`LIST` of `FILE`": FILE assigns LIST
for name, f in re.findall(r'`(\w+)` of `([\w/.-]+)`', doc):
    if not f.endswith('meson.build'):
        continue
    ok(os.path.exists(os.path.join(top, f)) and
       re.search(r'^%s\s*=' % re.escape(name), read(f), re.M) is not None,
       '`%s` is a list of `%s`' % (name, f))

# unit tests and meson tests named
meson_files = glob.glob(os.path.join(top, '**', 'meson.build'), recursive=True)
meson_files = [f for f in meson_files if '/build' not in os.path.relpath(f, top)[:6]]
all_tests = set()
for f in meson_files:
    with open(f, encoding='utf-8') as fh:
        all_tests |= set(re.findall(r"\btest\('([\w-]+)'", fh.read()))
unit_tests = set(re.findall(r"\btest\('([\w-]+)'", read('tests/unit/meson.build')))
unit_tests |= set(re.findall(r"^  '([\w-]+)' : 'test_\w+\.c'", read('tests/unit/meson.build'), re.M))
for kind, names in re.findall(r'\b(unit|meson) tests? ((?:`[\w-]+`(?:,? and |, )?)+)', doc):
    for name in re.findall(r'`([\w-]+)`', names):
        ok(name in (unit_tests if kind == 'unit' else all_tests),
           'the %s test `%s` is registered' % (kind, name))

# ./run commands
run_src = read('run')
for cmd in sorted(set(re.findall(r'`\./run (\w+)', doc))):
    ok(re.search(r'^\s*%s\)' % cmd, run_src, re.M) is not None or cmd == 'help' and
       'help' in run_src, '`./run %s` is a command of ./run' % cmd)

# the subcommand table: bpfmem_cmds of tools/meson.build makes cmds.h and the pages
tm = read('tools/meson.build')
ok('`bpfmem_cmds` of `tools/meson.build`' in doc and
   re.search(r'^bpfmem_cmds = \{', tm, re.M) and
   re.search(r"foreach name, help : bpfmem_cmds\n(?:.*\n){0,6}?.*cmds_table \+=", tm) and
   "output : 'cmds.h'" in tm and '#include "cmds.h"' in read('tools/bpfmem.c') and
   re.search(r'foreach name : bpfmem_cmd_names', read('docs/man/meson.build')),
   'the subcommand table it names, bpfmem_cmds of tools/meson.build, makes cmds.h of '
   'tools/bpfmem.c and the pages')

taplib.done()
