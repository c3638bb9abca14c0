# SPDX-License-Identifier: GPL-2.0
"""TAP for the unit tests written in Python (check-man.py, check-schema.py,
check-contributing.py): ok() and skip() number the lines, done() ends the plan and
exits 1 after a failure; read() and subcommands() read the source tree at `top`."""
import os
import re
import sys

top = '.'
n = 0
fails = 0


def ok(good, what, detail=''):
    """One test line; on failure, detail's lines as TAP comments."""
    global n, fails
    n += 1
    print(('ok' if good else 'not ok') + ' %d - %s' % (n, what))
    if not good:
        fails += 1
        for line in detail.splitlines():
            print('#   ' + line)


def skip(what):
    global n
    n += 1
    print('ok %d - # SKIP %s' % (n, what))


def done():
    print('1..%d' % n)
    sys.exit(1 if fails else 0)


def read(path):
    """A file of the tree, by its path from the top."""
    with open(os.path.join(top, path), encoding='utf-8') as f:
        return f.read()


def subcommands():
    """The subcommands: the names of bpfmem_cmds of tools/meson.build, in its order."""
    m = re.search(r'^bpfmem_cmds = \{\n(.*?)^\}', read('tools/meson.build'), re.M | re.S)
    return re.findall(r"^\s*'([a-z]+)' :", m.group(1), re.M) if m else []
