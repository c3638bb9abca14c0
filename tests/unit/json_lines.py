#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every line `test_json --lines` prints (the writer's records: the unit test cases and
2000 random documents) must be strict UTF-8 and parse with json.loads, with NaN and
Infinity refused. TAP output.

    json_lines.py PATH/TO/test_json
"""
import json
import subprocess
import sys


def refuse(name):
    raise ValueError("not JSON: " + name)


def main():
    out = subprocess.run([sys.argv[1], "--lines"], stdout=subprocess.PIPE, check=False)
    lines = out.stdout.split(b"\n")
    bad = []
    if lines[-1] != b"":
        bad.append("output does not end with a newline")
    lines = lines[:-1]
    for i, raw in enumerate(lines):
        try:
            v = json.loads(raw.decode("utf-8"), parse_constant=refuse)
            if not isinstance(v, (dict, list)):
                raise ValueError("a record is not an object or array")
        except ValueError as e:
            bad.append("line %d: %s: %r" % (i + 1, e, raw[:200]))
    print("ok 1 - test_json --lines exits 0" if out.returncode == 0 else
          "not ok 1 - test_json --lines exits %d" % out.returncode)
    print("%s 2 - %d lines, each strict UTF-8 and JSON" % ("not ok" if bad else "ok", len(lines)))
    for b in bad[:10]:
        print("# " + b)
    ok = len(lines) >= 2000
    print("%s 3 - at least 2000 records" % ("ok" if ok else "not ok"))
    print("1..3")
    return 1 if bad or out.returncode or not ok else 0


if __name__ == "__main__":
    sys.exit(main())
