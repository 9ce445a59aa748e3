#!/usr/bin/python3
"""check.py -- the house in layers, checked (make check-layers) and drawn.

    tests/layers/check.py BUILD           check; exit 1 on a violation
    tests/layers/check.py BUILD --draw    print docs/LAYERS.md (make layers-doc)

The layers are tests/layers/layers.txt: every folder of sim/ and models/,
lowest first, each with the folders it may use.  Two kinds of edge go from
one file to another:

  include  a `#include "..."` in a .c or .h (written from sim/ or models/,
           "engine/sim.h", so its folder shows);
  call     an undefined symbol of BUILD/X.o that another object of BUILD
           defines (nm), so a call through a header of no function, or a
           variable, counts too.

It fails when an edge goes to a folder its folder may not use, when two
files have edges both ways (they call or include each other: a .c and a
header are two files, so a .c including the header of the file it is called
by is not a pair), when a file lies in a folder the list does not name,
when an include names no file, or when a folder has no README.md.
"""
import os
import re
import subprocess
import sys

ROOTS = ('sim', 'models')
LAYERS = 'tests/layers/layers.txt'
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(path):
    """The folders in order and what each may use; refuses a use of a
    folder that is not below."""
    order, uses, errors = [], {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            folder, _, rest = line.partition(':')
            folder = folder.strip()
            for u in rest.split():
                if u not in uses:
                    errors.append('%s:%d: %s may use %s, which is not a folder below it'
                                  % (path, n, folder, u))
            order.append(folder)
            uses[folder] = set(rest.split())
    return order, uses, errors


def sources():
    """Every .c and .h under sim/ and models/, as paths from the top."""
    found = []
    for root in ROOTS:
        for d, _, names in os.walk(root):
            found += [os.path.join(d, n) for n in names if n.endswith(('.c', '.h'))]
    return sorted(found)


def include_edges(files, errors):
    edges = []
    for f in files:
        with open(f) as fh:
            text = fh.read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            target = next((r + '/' + name for r in ROOTS
                           if os.path.isfile(r + '/' + name)), None)
            if target is None:
                line = text.count('\n', 0, m.start()) + 1
                errors.append('%s:%d: #include "%s" names no file under %s'
                              % (f, line, name, ' or '.join(ROOTS)))
                continue
            edges.append((f, target, 'include', name))
    return edges


def call_edges(build, files, errors):
    """From nm: each object's undefined symbols, to the object defining them."""
    defined, undefined = {}, {}
    for f in files:
        if not f.endswith('.c'):
            continue
        obj = os.path.join(build, f[:-2] + '.o')
        if not os.path.isfile(obj):
            errors.append('%s: no object %s (build first: make)' % (f, obj))
            continue
        out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
        undefined[f] = set()
        for line in out.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == 'U':
                undefined[f].add(p[1])
            elif len(p) == 3 and p[1] in 'TDBRCVWG':
                defined.setdefault(p[2], f)
    edges = []
    for f, syms in undefined.items():
        for s in sorted(syms):
            g = defined.get(s)
            if g and g != f:
                edges.append((f, g, 'call', s))
    return edges


def check(order, uses, files, edges, errors):
    place = {f: os.path.dirname(f) for f in files}
    for f in files:
        if place[f] not in uses:
            errors.append('%s: its folder %s is not in %s' % (f, place[f], LAYERS))
    for d in order:
        if not os.path.isfile(os.path.join(d, 'README.md')):
            errors.append('%s: no README.md (what it holds, may use, is used by)' % d)
    both = {}
    for a, b, kind, what in edges:
        fa, fb = place[a], place[b]
        if fa in uses and fb in uses and fa != fb and fb not in uses[fa]:
            up = ' (a higher layer)' if order.index(fb) > order.index(fa) else ''
            errors.append('%s: %s %s of %s: %s may not use %s%s'
                          % (a, kind, what, b, fa, fb, up))
        both.setdefault((a, b), (kind, what))
    for (ua, ub), (kind, what) in sorted(both.items()):
        if ua < ub and (ub, ua) in both:
            kind2, what2 = both[(ub, ua)]
            errors.append('%s and %s use each other: %s %s one way, %s %s the other'
                          % (ua, ub, kind, what, kind2, what2))


def draw(order, uses, edges, files):
    """docs/LAYERS.md: the folders lowest first and the edges between them."""
    place = {f: os.path.dirname(f) for f in files}
    count = {}
    for a, b, kind, _ in edges:
        fa, fb = place[a], place[b]
        if fa != fb:
            count.setdefault((fa, fb), {'include': 0, 'call': 0})[kind] += 1
    nfiles = {d: sum(1 for f in files if place[f] == d) for d in order}
    out = ['# The house in layers',
           '',
           'Written by `make layers-doc` (tests/layers/check.py) from',
           '[tests/layers/layers.txt](../tests/layers/layers.txt), which says which folder may',
           'use which; `make check-layers` (run by `make test`) fails on an include or a call',
           'that runs up the house, or on two files that use each other. Each folder\'s',
           'README.md says what it holds.',
           '',
           'The floors, top first, and the folders each one uses (includes / calls',
           'between their files):',
           '',
           '```']
    for d in reversed(order):
        out.append('%-20s %2d files' % (d, nfiles[d]))
        for u in reversed(order):
            if (d, u) in count:
                c = count[(d, u)]
                out.append('    -> %-22s %3d includes %4d calls' % (u, c['include'], c['call']))
    out.append('```')
    out += ['', 'The same as Graphviz (`dot -Tsvg`):', '', '```dot', 'digraph layers {',
            '    rankdir=BT; node [shape=box];']
    for (fa, fb) in sorted(count):
        out.append('    "%s" -> "%s";' % (fa, fb))
    out += ['}', '```', '']
    return '\n'.join(out)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: check.py BUILD [--draw]\n')
        return 2
    build = argv[1]
    order, uses, errors = read_layers(LAYERS)
    files = sources()
    edges = include_edges(files, errors) + call_edges(build, files, errors)
    if '--draw' in argv[2:]:
        sys.stdout.write(draw(order, uses, edges, files))
        return 0
    check(order, uses, files, edges, errors)
    for e in errors:
        print('check-layers: ' + e)
    if errors:
        print('check-layers: %d violations' % len(errors))
        return 1
    print('check-layers: %d files in %d folders, %d edges, none up a layer, no two files '
          'using each other' % (len(files), len(order), len(edges)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
