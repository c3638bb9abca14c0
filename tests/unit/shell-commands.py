#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The commands shell scripts run: the names in command position.

    shell-commands.py [--root DIR] FILE...

prints one line per command found, "NAME<TAB>FILE:LINE" (where it is run first, or
"FILE:LINE (looked up)" for a name only looked up, with command -v, type or hash, the
way a script checks for what it runs: literal or the words of a for loop over the
variable), for tests/unit/check-commands.sh.

A word counts as a command only where the shell would run it: the first word of a
simple command (after assignments and redirections; after |, |&, &&, ||, ;, &, (, a
newline, $( or `...`, <( and >(, the keywords then/do/else/if/while/until/!/{), the
command a wrapper runs (exec, env, timeout, nice, nohup, setsid, stdbuf, ionice,
chrt, taskset, flock, unshare, chroot, xargs, sudo, find -exec, `command` without
-v/-V) and the code strings of sh -c, bash -c, flock -c and trap. Not: words in
quoted strings, heredoc text, comments, arguments, assignments, case patterns,
[[ ]] and (( )), shell builtins and keywords, functions the script defines or
sources. A command word that the shell expands ("$cmd", "${qemu[@]}") is unknown
and left out, as are paths of the tree's own scripts (./run, "$top/x.sh").

Approximate: it is no full shell parser, and where it cannot tell it leaves a word
out, so that a plain word of prose is never taken for a command.
"""
import bisect
import os
import re
import subprocess
import sys

SEPARATORS = {';', '&', '|', '|&', '&&', '||', '\n', ';;', ';&', ';;&', '(', ')'}
ASSIGN = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=')
NAME = re.compile(r'^[A-Za-z0-9_][A-Za-z0-9_.+:@-]*$')


class Word:
    def __init__(self, value, line, raw=''):
        self.value = value  # the word without quotes; None where it has expansions
        self.line = line
        self.raw = raw  # the same with its expansions as written

    def __repr__(self):
        return 'W(%r)' % self.value


class Tok:
    def __init__(self, kind, value, line):
        self.kind = kind  # 'op', 'arith'
        self.value = value
        self.line = line

    def __repr__(self):
        return '%s(%r)' % (self.kind, self.value)


class Lexer:
    """Tokens of shell text; command substitutions inside are parsed on the spot
    (their commands go to the Script's list)."""

    def __init__(self, script, text, line0):
        self.script = script
        self.s = text
        self.line0 = line0
        self.nl = [m.start() for m in re.finditer('\n', text)]
        self.heredocs = []  # (delimiter, quoted, strip_tabs) waiting for the next newline

    def line(self, i):
        return self.line0 + bisect.bisect_left(self.nl, i)

    def sub(self, text, i):
        """Parses TEXT (a substitution starting at offset I) as a script."""
        self.script.parse(text, self.line(i))

    def matching(self, i, open_, close):
        """Offset just past the CLOSE that matches the OPEN before I, respecting quotes."""
        s, depth = self.s, 1
        while i < len(s):
            c = s[i]
            if c == '\\':
                i += 2
                continue
            if c == "'":
                j = s.find("'", i + 1)
                i = len(s) if j < 0 else j + 1
                continue
            if c == '"':
                i = self.dquote(i + 1, scan=False)
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return i

    def dollar(self, i, scan=True):
        """I at '$': offset past the expansion; parses a command substitution.
        Returns (end, expanded)."""
        s = self.s
        nxt = s[i + 1:i + 2]
        if s.startswith('$((', i):
            end = self.arith_end(i + 3)
            if scan:  # $(( $(cmd) + 1 ))
                self.scan_text(i + 3, end - 2)
            return end, True
        if nxt == '(':
            end = self.subst_end(i + 2)
            if scan:
                self.sub(s[i + 2:end - 1], i)
            return end, True
        if nxt == '{':
            end = self.matching(i + 2, '{', '}')
            if scan:  # ${JOBS:-$(nproc)}
                self.scan_text(i + 2, end - 1)
            return end, True
        if nxt == "'":  # $'...'
            j = i + 2
            while j < len(s) and s[j] != "'":
                j += 2 if s[j] == '\\' else 1
            return j + 1, False
        if nxt == '"':
            return i + 1, False
        m = re.match(r'[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]', s[i + 1:])
        if m:
            return i + 1 + m.end(), True
        return i + 1, False

    def arith_end(self, i):
        """I past '((': offset past the matching '))'."""
        s, depth = self.s, 2
        while i < len(s) and depth:
            if s[i] == '(':
                depth += 1
            elif s[i] == ')':
                depth -= 1
            i += 1
        return i

    def subst_end(self, i):
        """I past '$(' or '<(': offset past the matching ')', by lexing what is inside."""
        sublex = Lexer(self.script, self.s, 0)
        sublex.nl = self.nl
        sublex.line0 = self.line0
        _, end = sublex.tokens(i, stop=True, scan=False)
        return end

    def backtick(self, i, scan=True):
        """I past '`': offset past the closing one; parses what is inside."""
        s, j, out = self.s, i, []
        while j < len(s) and s[j] != '`':
            if s[j] == '\\' and j + 1 < len(s):
                out.append(s[j + 1])
                j += 2
                continue
            out.append(s[j])
            j += 1
        if scan:
            self.sub(''.join(out), i)
        return j + 1

    def dquote(self, i, scan=True):
        """I past '"': offset past the closing '"'; parses substitutions inside.
        Returns the end; self.dq_expanded tells whether anything expands."""
        s = self.s
        self.dq_expanded = False
        while i < len(s):
            c = s[i]
            if c == '\\':
                i += 2
            elif c == '"':
                return i + 1
            elif c == '$':
                i, e = self.dollar(i, scan)
                self.dq_expanded |= e
            elif c == '`':
                i = self.backtick(i + 1, scan)
                self.dq_expanded = True
            else:
                i += 1
        return i

    def heredoc_bodies(self, i):
        """I just past a newline: skips the pending heredocs' bodies (an unquoted one
        is scanned for substitutions); returns the offset after them."""
        s = self.s
        for delim, quoted, strip in self.heredocs:
            start = i
            while i < len(s):
                j = s.find('\n', i)
                j = len(s) if j < 0 else j
                ln = s[i:j]
                if strip:
                    ln = ln.lstrip('\t')
                if ln == delim:
                    body_end = i
                    i = j + 1
                    break
                i = j + 1
            else:
                body_end = i
            if not quoted:
                self.scan_text(start, body_end)
        self.heredocs = []
        return i

    def scan_text(self, start, end):
        """Parses the substitutions ($(...), `...`) in the text from START to END, whose
        other words are no commands (a heredoc's text, an arithmetic expression)."""
        scanner = Lexer(self.script, self.s[:end], self.line0)
        scanner.nl = self.nl
        k = start
        while k < end:
            c = self.s[k]
            if c == '\\':
                k += 2
            elif c == '$':
                k, _ = scanner.dollar(k)
            elif c == '`':
                k = scanner.backtick(k + 1)
            else:
                k += 1

    def tokens(self, i=0, stop=False, scan=True):
        """Tokens from I to the end, or (STOP) to the ')' closing a $( or <(.
        Returns (tokens, end offset). Redirections are dropped with their targets."""
        s, toks, depth = self.s, [], 0
        redir_target = False
        while i < len(s):
            c = s[i]
            if c in ' \t':
                i += 1
                continue
            if c == '\\' and s[i + 1:i + 2] == '\n':
                i += 2
                continue
            if c == '#':
                j = s.find('\n', i)
                i = len(s) if j < 0 else j
                continue
            if c == '\n':
                toks.append(Tok('op', '\n', self.line(i)))
                i += 1
                if self.heredocs:
                    i = self.heredoc_bodies(i)
                continue
            # operators
            if s.startswith('((', i) and (not toks or toks[-1].kind == 'op' or
                                          (toks[-1].kind == 'word' and toks[-1].value.value in ('for', 'do', 'then', 'else', 'if', 'while', 'until', '!', '{'))):
                toks.append(Tok('arith', None, self.line(i)))
                i = self.arith_end(i + 2)
                continue
            if c in '<>' and s[i + 1:i + 2] == '(':  # process substitution: a word
                end = self.subst_end(i + 2)
                if scan:
                    self.sub(s[i + 2:end - 1], i)
                toks.append(Tok('word', Word(None, self.line(i)), self.line(i)))
                i = end
                continue
            m = re.match(r'(\{[A-Za-z_][A-Za-z0-9_]*\}|[0-9]*)(<<<|<<-|<<|<>|<&|>&|>>|>\||&>>|&>|<|>)', s[i:])
            if m and (m.group(1) == '' or c in '0123456789{'):
                op = m.group(2)
                i += m.end()
                if op in ('<<', '<<-'):
                    # the delimiter: the next word, quotes removed
                    while i < len(s) and s[i] in ' \t':
                        i += 1
                    m2 = re.match(r'''(['"]?)([^\s'"<>;&|()]+)\1''', s[i:])
                    if m2:
                        self.heredocs.append((m2.group(2), bool(m2.group(1)) or '\\' in m2.group(2),
                                              op == '<<-'))
                        i += m2.end()
                    continue
                redir_target = True
                continue
            m = re.match(r';;&|;;|;&|\|\||\|&|&&|[;&|()]', s[i:])
            if m:
                op = m.group(0)
                if op == '(':
                    depth += 1
                elif op == ')':
                    if stop and depth == 0:
                        return toks, i + 1
                    depth -= 1
                toks.append(Tok('op', op, self.line(i)))
                i += m.end()
                continue
            # a word
            start, val, expanded = i, [], False
            while i < len(s):
                c = s[i]
                if c in ' \t\n;&|()<>':
                    break
                if c == '\\':
                    if s[i + 1:i + 2] == '\n':
                        i += 2
                        continue
                    val.append(s[i + 1:i + 2])
                    i += 2
                elif c == "'":
                    j = s.find("'", i + 1)
                    j = len(s) if j < 0 else j
                    val.append(s[i + 1:j])
                    i = j + 1
                elif c == '"':
                    j = self.dquote(i + 1, scan)
                    expanded |= self.dq_expanded
                    val.append(s[i + 1:j - 1])
                    i = j
                elif c == '$':
                    j, e = self.dollar(i, scan)
                    expanded |= e
                    val.append(s[i:j])
                    i = j
                elif c == '`':
                    i = self.backtick(i + 1, scan)
                    expanded = True
                else:
                    val.append(c)
                    i += 1
            if redir_target:
                redir_target = False
                continue
            toks.append(Tok('word', Word(None if expanded else ''.join(val), self.line(start),
                                         ''.join(val)), self.line(start)))
        return toks, i


class Script:
    def __init__(self, path, builtins):
        self.path = path
        self.builtins = builtins
        self.found = []  # (name, line, looked up only)
        self.loops = {}  # variable -> the words of the last for loop over it
        self.functions = set()
        self.sourced = []

    def parse(self, text, line0=1):
        toks, _ = Lexer(self, text, line0).tokens()
        self.walk(toks)

    def emit(self, w, lookup=False):
        if w.value is not None and w.value:
            self.found.append((w.value, w.line, lookup))

    def lookups(self, words):
        """Names looked up with command -v, type or hash: what the script means to run
        (a literal name, or the words of a for loop over the variable)."""
        for w in words:
            if w.value is not None and not w.value.startswith('-'):
                self.emit(w, True)
            elif w.value is None:
                m = re.match(r'^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$', w.raw)
                for x in self.loops.get(m.group(1), []) if m else []:
                    self.emit(x, True)

    def walk(self, toks):
        i, n = 0, len(toks)
        cmdpos = True
        case_depth = 0
        in_pattern = False

        def word(k):
            return toks[k].value.value if k < n and toks[k].kind == 'word' else None

        while i < n:
            t = toks[i]
            if in_pattern:  # case patterns up to ')'
                if t.kind == 'word' and t.value.value == 'esac':
                    case_depth -= 1
                    in_pattern = False
                    cmdpos = False
                elif t.kind == 'op' and t.value == ')':
                    in_pattern = False
                    cmdpos = True
                i += 1
                continue
            if t.kind == 'op':
                if t.value in (';;', ';&', ';;&') and case_depth:
                    in_pattern = True
                cmdpos = t.value != ')'
                i += 1
                continue
            if t.kind == 'arith':
                cmdpos = False
                i += 1
                continue
            if not cmdpos:
                i += 1
                continue
            v = t.value.value
            if v in ('if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', 'time'):
                i += 1
                continue
            if v in ('fi', 'done', '}'):
                cmdpos = False
                i += 1
                continue
            if v == 'esac':
                case_depth -= 1
                cmdpos = False
                i += 1
                continue
            if v in ('for', 'select'):  # up to the separator before "do"
                var, words = word(i + 1), []
                i += 1
                while i < n and not (toks[i].kind == 'op' and toks[i].value in (';', '\n')):
                    if toks[i].kind == 'word':
                        words.append(toks[i].value)
                    i += 1
                if var and words[1:2] and words[1].value == 'in':
                    self.loops[var] = words[2:]  # for c in gcc make; do command -v "$c"
                continue
            if v == 'case':
                i += 1
                while i < n and word(i) != 'in':
                    i += 1
                case_depth += 1
                in_pattern = True
                i += 1
                continue
            if v == '[[':
                while i < n and word(i) != ']]':
                    i += 1
                cmdpos = False
                i += 1
                continue
            if v == 'function':
                if word(i + 1):
                    self.functions.add(word(i + 1))
                i += 2
                if i + 1 < n and toks[i].kind == 'op' and toks[i].value == '(':
                    i += 2
                continue
            if v is not None and i + 2 < n and toks[i + 1].kind == 'op' and toks[i + 1].value == '(' \
                    and toks[i + 2].kind == 'op' and toks[i + 2].value == ')':
                self.functions.add(v)  # NAME() { ...; }
                i += 3
                continue
            if ASSIGN.match(t.value.raw):
                i += 1
                if t.value.raw.endswith('=') and i < n and toks[i].kind == 'op' and toks[i].value == '(':
                    while i < n and not (toks[i].kind == 'op' and toks[i].value == ')'):
                        i += 1
                    i += 1  # NAME=( ... )
                continue
            # a simple command: its words up to the next operator
            argv = []
            while i < n and toks[i].kind == 'word':
                argv.append(toks[i].value)
                i += 1
            self.command(argv)
            cmdpos = False

    def command(self, argv):
        """ARGV: the words of a simple command; records what it runs."""
        if not argv:
            return
        w = argv[0]
        name = w.value
        if name is None:
            return
        rest = argv[1:]
        vals = [a.value for a in rest]

        def after(skip_opts_with_arg=(), positionals=0, stop_at_opt_end=True):
            """The words after options (and POSITIONALS plain arguments)."""
            k = 0
            while k < len(rest):
                a = vals[k]
                if a is None:
                    break
                if a == '--':
                    k += 1
                    break
                if a.startswith('-') and len(a) > 1:
                    k += 2 if a in skip_opts_with_arg else 1
                    continue
                break
            return rest[k + positionals:]

        if name in ('.', 'source'):
            if rest:
                self.sourced.append(rest[0])
            return
        if name == 'exec':
            self.command(after(('-a',)))
            return
        if name == 'command':
            if any(v in ('-v', '-V') for v in vals[:2]):
                self.lookups(rest)  # a look-up, not a run
                return
            self.command(after())
            return
        if name == 'builtin':
            return
        if name in ('type', 'hash'):
            self.lookups(rest)
            return
        if name == 'trap':
            if rest and vals[0] is not None and vals[0] != '-' and not vals[0].startswith('-'):
                self.parse(vals[0], rest[0].line)
            return
        if name in self.builtins:
            return
        self.emit(w)
        base = os.path.basename(name)
        if base in ('sh', 'bash', 'dash'):
            for k, a in enumerate(vals[:-1]):
                if a is not None and a.startswith('-') and 'c' in a[1:] and not a.startswith('--'):
                    if vals[k + 1] is not None:
                        self.parse(vals[k + 1], rest[k + 1].line)
                    break
        elif base == 'env':
            k = 0
            while k < len(rest):
                a = vals[k]
                if a is None:
                    return
                if a in ('-u', '-C', '--unset', '--chdir', '-S', '--split-string'):
                    k += 2
                elif a.startswith('-') or ASSIGN.match(a):
                    k += 1
                else:
                    break
            self.command(rest[k:])
        elif base == 'timeout':
            self.command(after(('-s', '--signal', '-k', '--kill-after'), positionals=1))
        elif base == 'nice':
            self.command(after(('-n', '--adjustment')))
        elif base in ('nohup', 'setsid', 'unshare', 'sudo'):
            self.command(after(('-u', '-g', '-C', '-D')))
        elif base == 'stdbuf':
            self.command(after(('-i', '-o', '-e')))
        elif base == 'ionice':
            self.command(after(('-c', '-n', '-p', '-P', '-u')))
        elif base == 'chrt':
            self.command(after(('-T', '-P', '-D', '-p'), positionals=1))
        elif base == 'taskset':
            self.command(after(('-c', '--cpu-list'), positionals=0 if '-c' in vals else 1)
                         if '-p' not in vals else [])
        elif base == 'chroot':
            self.command(after(('--userspec', '--groups'), positionals=1))
        elif base == 'flock':
            for k, a in enumerate(vals[:-1]):
                if a in ('-c', '--command') and vals[k + 1] is not None:
                    self.parse(vals[k + 1], rest[k + 1].line)
                    return
            cmd = after(('-w', '--timeout', '-E', '--conflict-exit-code'), positionals=1)
            self.command(cmd)
        elif base == 'xargs':
            self.command(after(('-a', '-d', '-E', '-e', '-I', '-i', '-L', '-l', '-n', '-P', '-s',
                                '--arg-file', '--delimiter', '--max-args', '--max-procs')))
        elif base == 'find':
            for k, a in enumerate(vals):
                if a in ('-exec', '-execdir', '-ok', '-okdir'):
                    self.command(rest[k + 1:])
        elif base == 'watch':
            self.command(after(('-n', '--interval', '-d')))


def builtin_names():
    out = subprocess.run(['bash', '--norc', '--noprofile', '-c', 'compgen -b; compgen -k'],
                         capture_output=True, text=True, env={'PATH': '/usr/bin:/bin'},
                         check=True).stdout.split()
    return set(out) | {'[', '[[', ']]', '.', ':', 'local'}


def tree_files(root):
    """name -> paths of the files under ROOT (no .git, no build directories)"""
    files = {}
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x != '.git' and not x.startswith('build')]
        for x in names:
            files.setdefault(x, []).append(os.path.join(d, x))
    return files


def main(args):
    root = None
    if args[:1] == ['--root']:
        root, args = args[1], args[2:]
    paths = args
    builtins = builtin_names()
    scripts = {}
    for p in paths:
        sc = Script(p, builtins)
        with open(p, encoding='utf-8', errors='replace') as f:
            sc.parse(f.read())
        scripts[p] = sc
    by_base = {}
    for p in paths:
        by_base.setdefault(os.path.basename(p), []).append(p)
    tree, seen = None, {}
    for p, sc in list(scripts.items()):
        funcs = set(sc.functions)
        # functions of the files it sources (one level; by name, as "$top/x/lib.sh")
        for w in sc.sourced:
            base = os.path.basename(w.raw)
            if base not in by_base and root:
                # a sourced file without #! line (tests/tap.sh): its functions only
                if tree is None:
                    tree = tree_files(root)
                for q in tree.get(base, []):
                    lib = Script(q, builtins)
                    with open(q, encoding='utf-8', errors='replace') as f:
                        lib.parse(f.read())
                    scripts[q] = lib
                    by_base.setdefault(base, []).append(q)
            for q in by_base.get(base, []):
                funcs |= scripts[q].functions
        for name, line, lookup in sc.found:
            if name in funcs or name in builtins:
                continue
            if '/' in name:
                # the tree's own scripts ("./run", "$top/x.sh") are not PATH commands;
                # an absolute system path is judged as it is
                if not re.match(r'^/(usr/)?s?bin/', name):
                    continue
            elif not NAME.match(name):
                continue
            where = '%s:%d%s' % (p, line, ' (looked up)' if lookup else '')
            if name not in seen or (seen[name].endswith('(looked up)') and not lookup):
                seen[name] = where
    for name in sorted(seen):
        print('%s\t%s' % (name, seen[name]))


if __name__ == '__main__':
    main(sys.argv[1:])
