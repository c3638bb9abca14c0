#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each subcommand's JSON schema is written once, in docs/schema/CMD.json, and the three
places that show it agree with it (TAP), so that they cannot drift:

    tests/unit/check-schema.py SRC_ROOT

docs/schema/CMD.json lists the member names ("fields") and the quoted string values
("values") of bpfmem CMD -j's records. For every subcommand that has one:
  the page     the literal block of the JSON section of docs/man/bpfmem-CMD.8.rst (or its
               first paragraph, where it has no literal block): its "NAME": are exactly
               the fields, its other "WORD"s exactly the values
  the source   the head comment of tools/CMD.c from its first "JSON" on: its "NAME":
               are exactly the fields, the values are among its other "WORD"s (its
               prose may quote more)
  -j's help    the help of the json option in tools/CMD.c's option table: every name it
               lists is a field or a value
A subcommand whose page has a JSON section has a schema file, and every schema file
is a subcommand's (bpfmem_cmds of tools/meson.build).
"""
import json
import os
import re
import sys

import taplib
from taplib import ok, read

top = taplib.top = sys.argv[1]


TOK = re.compile(r'"([A-Za-z_][A-Za-z0-9_-]*)"(\s*:)?')


def tokens(text):
    """(member names, other quoted words) of a text: "NAME": and "WORD"."""
    fields, values = set(), set()
    for word, colon in TOK.findall(text):
        (fields if colon else values).add(word)
    return fields, values


def page_json(rst):
    """The literal block(s) of a page's JSON section, else its first paragraph."""
    m = re.search(r'^JSON\n=+\n(.*?)(?=^[A-Z][A-Z ]+\n=+\n|\Z)', rst, re.M | re.S)
    if not m:
        return None
    lit, inlit = [], False
    for line in m.group(1).splitlines():
        if line.rstrip().endswith('::'):
            inlit = True
        elif inlit and line and not line.startswith(' '):
            inlit = False
        elif inlit:
            lit.append(line)
    if lit:
        return '\n'.join(lit)
    return m.group(1).strip().split('\n\n')[0]


def source_json(src):
    """The head comment of a tools/CMD.c from its first "JSON" on."""
    m = re.match(r'.*?/\*(.*?)\*/', src, re.S)
    if not m or 'JSON' not in m.group(1):
        return None
    return m.group(1)[m.group(1).index('JSON'):]


def help_names(src):
    """The names the json option's help lists, after its first ':' (C string literal
    bodies joined; the path of the schema it names left out): its quoted names, where
    it quotes them, else its words up to the last brace."""
    m = re.search(r"^\t\{ 'j', \"json\", NULL, ((?:\s*\"(?:[^\"\\]|\\.)*\")+)", src, re.M)
    if not m:
        return None
    text = ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))).replace('\\n', ' ')
    text = re.sub(r'\\(.)', r'\1', text)
    text = re.sub(r'tools/\w+\.c', '', text)
    if ':' not in text:
        return set()
    text = text.split(':', 1)[1]
    if '"' in text:     # names quoted: those ("closed_flows", ...)
        return set(re.findall(r'"([a-z][a-z0-9_]*)"', text))
    # bare names ({time,series,...}): up to the last brace, without "(null = n/a)"
    text = re.sub(r'\(null = n/a\)', '', text[:max(text.rfind('}'), text.rfind(']')) + 1])
    return set(re.findall(r'\b[a-z][a-z0-9_]*\b', text)) - {'null'}


cmds = taplib.subcommands()
ok(len(cmds) >= 7, 'subcommands of tools/meson.build (bpfmem_cmds): %s' % ' '.join(cmds))
schemas = sorted(f[:-len('.json')] for f in os.listdir(os.path.join(top, 'docs/schema'))
                 if f.endswith('.json'))
ok(set(schemas) <= set(cmds), 'docs/schema/CMD.json: each is a subcommand\'s (%s)' %
   ' '.join(schemas), 'not subcommands: %s' % ' '.join(sorted(set(schemas) - set(cmds))))

for cmd in cmds:
    page = page_json(read('docs/man/bpfmem-%s.8.rst' % cmd))
    if cmd not in schemas:
        ok(page is None, '%s: no JSON section in its page, no schema' % cmd,
           'bpfmem-%s(8) has a JSON section: write docs/schema/%s.json' % (cmd, cmd))
        continue
    try:
        schema = json.loads(read('docs/schema/%s.json' % cmd))
        fields, values = set(schema['fields']), set(schema['values'])
        good = len(fields) == len(schema['fields']) and len(values) == len(schema['values'])
    except (ValueError, KeyError, TypeError) as e:
        fields, values, good = set(), set(), False
    ok(good and fields, '%s: docs/schema/%s.json lists fields and values, once each' %
       (cmd, cmd))

    ok(page is not None, '%s: its page has a JSON section' % cmd)
    pf, pv = tokens(page or '')
    ok(pf == fields, '%s: the page\'s JSON section has the schema\'s fields' % cmd,
       'only in the page: %s\nonly in the schema: %s' % (' '.join(sorted(pf - fields)),
                                                          ' '.join(sorted(fields - pf))))
    ok(pv == values, '%s: the page\'s JSON section has the schema\'s values' % cmd,
       'only in the page: %s\nonly in the schema: %s' % (' '.join(sorted(pv - values)),
                                                          ' '.join(sorted(values - pv))))

    src = read('tools/%s.c' % cmd)
    comment = source_json(src)
    if comment is not None:
        sf, sv = tokens(comment)
        ok(sf == fields, '%s: the head comment of tools/%s.c has the schema\'s fields' %
           (cmd, cmd), 'only in the comment: %s\nonly in the schema: %s' % (
               ' '.join(sorted(sf - fields)), ' '.join(sorted(fields - sf))))
        ok(values <= sv, '%s: the head comment of tools/%s.c has the schema\'s values' %
           (cmd, cmd), 'not in the comment: %s' % ' '.join(sorted(values - sv)))
    else:
        taplib.skip('%s: tools/%s.c writes no schema in its head comment' % (cmd, cmd))

    names = help_names(src)
    ok(names is not None, '%s: tools/%s.c has a json option' % (cmd, cmd))
    extra = (names or set()) - fields - values
    ok(not extra, '%s: the json option\'s help names only the schema\'s fields and values'
       % cmd, 'not in the schema: %s' % ' '.join(sorted(extra)))

taplib.done()
