#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/summary.py, the gate's last word (CI shows only what it prints): counts every
TAP line, a TAP test that failed without a 'not ok' line as one failure, SKIPs apart;
prints each failure with the '#' diagnostics around it and exits 1 on any failure."""
import json
import os
import subprocess
import sys
import tempfile

import taplib

taplib.top = sys.argv[1]
script = os.path.join(taplib.top, 'tests', 'summary.py')


def run(tests):
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        for t in tests:
            f.write(json.dumps(t) + '\n')
    p = subprocess.run([sys.executable, script, f.name], capture_output=True, text=True)
    os.unlink(f.name)
    return p.returncode, p.stdout.splitlines()


tap = ('ok 1 - a\n# noise\n# before it\nnot ok 2 - b\n#   why one\n#   why two\n'
       'ok 3 - c\n# after c\nok 4 - # SKIP d\n')
rc, out = run([{'name': 'g', 'result': 'FAIL', 'stdout': tap},
               {'name': 'plain', 'result': 'OK', 'stdout': 'no tap\n'},
               {'name': 'died', 'result': 'ERROR', 'stdout': 'ok 1 - x\n'}])
taplib.ok(rc == 1, 'exit status 1 on a failure', 'got %d' % rc)
taplib.ok(out[-1] == '4 passed, 2 failed, 1 skipped', 'the counts line',
          '\n'.join(out))
taplib.ok('FAILED: g: not ok 2 - b' in out, 'the failed TAP line named', '\n'.join(out))
i = out.index('FAILED: g: not ok 2 - b') if 'FAILED: g: not ok 2 - b' in out else -1
taplib.ok(out[i + 1:i + 5] == ['  # noise', '  # before it', '  #   why one', '  #   why two'],
          "its '#' lines before and after it, up to the next result", '\n'.join(out))
taplib.ok('  # after c' not in out, "a passing line's diagnostics are not printed",
          '\n'.join(out))
taplib.ok('FAILED: died: ERROR' in out, 'a TAP test that failed without a not ok line',
          '\n'.join(out))
rc, out = run([{'name': 'g', 'result': 'OK', 'stdout': 'ok 1 - a\nok 2 - b\n'}])
taplib.ok(rc == 0 and out == ['2 passed, 0 failed'], 'all passed: exit 0',
          '%d %s' % (rc, out))
taplib.done()
