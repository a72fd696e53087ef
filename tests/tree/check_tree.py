#!/usr/bin/env python3
"""The rules of the tree that no compiler checks (CONTRIBUTING.md, "The tree's rules"), read from
the sources as text:

1. Layers: a folder includes only the folders below it (the table LAYERS), so that no include
   loop runs between two folders. Inside one folder anything goes.
2. Includes: every quoted include names an existing path from the repository's root, a public
   header "stepnet/NAME.h", or a generated header under proto/ or generated/.
3. A silent engine: no file under core/, coordinator/ or launch/ writes to a stream (printf,
   fprintf, puts, fwrite, stdout, stderr, isatty ...): they return results, texts and events, and
   the front ends (cli/, node/) write.
4. No flags in the engine: no string literal under core/, coordinator/ or launch/ spells a
   command-line option ("--name"); messages refer to parameters by id (SN_REF_*, named by the
   front end). The one exception is the file that writes stepnet-node's command line for the
   launchers (FLAG_FILES).
5. The execution mode is a type: no boolean of its own (the old name, OLD_SYNC, nowhere).
6. Include guards: STEPNET_<PATH>_H, the header's path from the root in capitals with every other
   character as `_` (net/conn.h: STEPNET_NET_CONN_H), a public header's name alone
   (include/stepnet/topo.h: STEPNET_TOPO_H).

Run from anywhere: python3 tests/tree/check_tree.py [ROOT]; --self-test checks the checker on a
small tree of its own, one breach of each rule. Exit 0 when every rule holds, 1 with
one line per breach (file:line: rule: what)."""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != '--self-test' else
                       os.path.join(os.path.dirname(__file__), '..', '..'))

# Folder -> the folders its files may include (besides itself and the public headers). Read
# bottom-up: core is pure; proc and net are the runtime's two lowest rooms; launch starts nodes;
# the coordinator (the engine) drives a run; cli and node are the two programs' front ends.
LAYERS = {
    'core': set(),
    'proc': {'core'},
    'net': {'core', 'proto'},
    'launch': {'core', 'proc', 'net', 'proto'},
    'coordinator': {'core', 'proc', 'net', 'launch', 'proto'},
    'cli': {'core', 'proc', 'net', 'launch', 'coordinator', 'proto', 'generated'},
    'node': {'core', 'proc', 'net', 'proto', 'generated'},
    'bench': {'core', 'proc', 'net', 'proto'},
}
SILENT = ('core', 'coordinator', 'launch')
# The one line the core writes: sn_xmalloc's message before it aborts on out of memory, when no
# caller is left to return a result to (core/util/util.c, "oom").
SILENT_EXCEPT = {('core/util/util.c', 'oom')}
FLAG_FILES = {'launch/node_cmd.c'}
GENERATED = ('proto/', 'generated/')
# The boolean the execution mode used to be, spelled in two pieces so that a grep of the tree for
# it finds nothing, this file included.
OLD_SYNC = 'sync_' + 'dataflow'


STREAM = re.compile(r'\b(printf|fprintf|vfprintf|vprintf|puts|fputs|fputc|putc|putchar|fwrite|'
                    r'perror|isatty)\s*\(|\b(stdout|stderr)\b')
FLAG = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]*')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def guard_of(path):
    """The include guard header `path` must have (rule 6)."""
    name = path[len('include/stepnet/'):] if path.startswith('include/stepnet/') else path
    return 'STEPNET_' + re.sub(r'[^A-Za-z0-9]', '_', name[:-2]).upper() + '_H'


def tracked():
    out = subprocess.run(['git', '-C', ROOT, 'ls-files', '*.c', '*.h', '*.def'],
                         capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.split()
    files = []
    for top in LAYERS:
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names
                      if n.endswith(('.c', '.h', '.def'))]
    return files


def code_and_strings(text):
    """The text with comments blanked (newlines kept), and the string literals with their line
    numbers. A small C lexer: enough for our sources (no trigraphs, no raw strings)."""
    code, strings, i, line, n = [], [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            code.append(re.sub(r'[^\n]', ' ', text[i:j]))
            line += text.count('\n', i, j)
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            code.append(' ' * (j - i))
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            if c == '"':
                strings.append((line, text[i + 1:j - 1]))
            code.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            if c == '\n':
                line += 1
            code.append(c)
            i += 1
    return ''.join(code), strings


def main():
    breaches = check()
    for b in breaches:
        print(b)
    if breaches:
        print('check_tree: %d breach%s of the tree\'s rules (CONTRIBUTING.md, "The tree\'s rules")'
              % (len(breaches), 'es' if len(breaches) != 1 else ''))
        return 1
    print('check_tree: the tree keeps its rules')
    return 0


def check():
    breaches = []
    say = lambda f, ln, rule, what: breaches.append('%s:%d: %s: %s' % (f, ln, rule, what))
    for f in sorted(tracked()):
        top = f.split('/')[0]
        if top not in LAYERS and top not in ('include', 'tests'):
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding='utf-8', errors='replace').read()
        except OSError:
            continue
        if OLD_SYNC in text:
            say(f, text[:text.index(OLD_SYNC)].count('\n') + 1, 'sync',
                '%s: the execution mode is sn_sync_t' % OLD_SYNC)
        if f.endswith('.h'):
            m = re.search(r'^#ifndef (\w+)\n#define \1\b', text, re.M)
            if not m or m.group(1) != guard_of(f):
                ln = text[:m.start()].count('\n') + 1 if m else 1
                say(f, ln, 'guard', 'the include guard is %s' % guard_of(f))
        lines = text.split('\n')
        for ln, l in enumerate(lines, 1):
            m = INCLUDE.match(l)
            if not m:
                continue
            inc = m.group(1)
            if inc.startswith('stepnet/'):
                if not os.path.exists(os.path.join(ROOT, 'include', inc)):
                    say(f, ln, 'include', '"%s": no such public header' % inc)
                continue
            if inc.startswith(GENERATED):
                dep = inc.split('/')[0]
            elif os.path.exists(os.path.join(ROOT, inc)) and '/' in inc:
                dep = inc.split('/')[0]
            else:
                say(f, ln, 'include', '"%s": not a path from the repository root' % inc)
                continue
            if top in LAYERS and dep != top and dep not in LAYERS[top]:
                say(f, ln, 'layers', '%s/ includes "%s": %s/ may include %s' %
                    (top, inc, top, ', '.join(sorted(LAYERS[top])) or 'only itself'))
        if top not in SILENT:
            continue
        code, strings = code_and_strings(text)
        func = None
        for ln, l in enumerate(code.split('\n'), 1):
            d = re.match(r'^(?:static\s+)?[\w\s\*]+?\b(\w+)\s*\(', l)
            if d and not l.startswith((' ', '\t', '#')):
                func = d.group(1)
            m = STREAM.search(l)
            if m and (f, func) not in SILENT_EXCEPT:
                say(f, ln, 'silent', '%s: the engine and the core write to no stream' %
                    (m.group(1) or m.group(2)))
        if f in FLAG_FILES:
            continue
        for ln, s in strings:
            m = FLAG.search(s)
            if m:
                say(f, ln, 'flags', '"%s": refer to the parameter (SN_REF_*), the front end '
                    'names it' % m.group(0))
    return breaches


# One file per rule, each breaking it once, beside files that keep every rule: the checker must
# name exactly the breaches, by file and rule.
SELF_TREE = {
    'include/stepnet/thing.h': '#ifndef STEPNET_THING_H\n#define STEPNET_THING_H\n#endif\n',
    'core/a/ok.h': '#ifndef STEPNET_CORE_A_OK_H\n#define STEPNET_CORE_A_OK_H\n#endif\n',
    'core/a/ok.c': '/* fine */\n#include "core/a/ok.h"\n#include "stepnet/thing.h"\n'
                   'static int f(void) { return snprintf(0, 0, "x"); } /* printf( in a comment */\n'
                   'static const char *s = "a -- b, x--y";\n',
    'core/a/layer.c': '#include "net/conn.h"\n',
    'net/conn.h': '#ifndef STEPNET_NET_CONN_H\n#define STEPNET_NET_CONN_H\n#endif\n',
    'core/a/include.c': '#include "ok.h"\n',
    'coordinator/silent.c': 'static void f(void) { fprintf(stderr, "x"); }\n',
    'launch/flag.c': 'static const char *m = "name it with --node-bin";\n',
    'launch/node_cmd.c': 'static const char *a = "--join";\n',
    'cli/sync.c': 'int %s;\n' % OLD_SYNC,
    'cli/guard.h': '#ifndef CLI_GUARD_H\n#define CLI_GUARD_H\n#endif\n',
    'core/util/util.c': 'static void oom(void)\n{\n    fprintf(stderr, "out of memory");\n}\n',
}
SELF_WANT = {('core/a/layer.c', 'layers'), ('core/a/include.c', 'include'),
             ('coordinator/silent.c', 'silent'), ('launch/flag.c', 'flags'),
             ('cli/sync.c', 'sync'), ('cli/guard.h', 'guard')}


def self_test():
    import tempfile
    global ROOT
    with tempfile.TemporaryDirectory() as d:
        for path, text in SELF_TREE.items():
            os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(d, path), 'w') as f:
                f.write(text)
        ROOT = d
        got = {(b.split(':')[0], b.split(': ')[1]) for b in check()}
    if got != SELF_WANT:
        print('check_tree --self-test: found %s, expected %s' % (sorted(got), sorted(SELF_WANT)))
        return 1
    print('check_tree --self-test: every rule caught once, nothing else')
    return 0


if __name__ == '__main__':
    sys.exit(self_test() if '--self-test' in sys.argv[1:] else main())
