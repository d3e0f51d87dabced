#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The harness's functions read as text (tests/layout.sh runs this):
  two-file call circles: module A calls a function defined in module B and B calls one defined
      in A (a module is NAME.c/.cu/.cc with NAME.h; NAME_private.h belongs to NAME);
  long functions: bodies over LIMIT lines, from the opening brace to the closing one at column 0
      (STYLE.md: definitions start at column 0).
Both are checked against ALLOWED, the debt known today ('long PATH NAME' and 'circle A B'
lines, to be split and broken): anything not listed fails, and so does a listed entry that is
no longer true, so that the list stays exact and only shrinks.
Prints one FAIL line per finding; exits 1 if any.
  tests/callgraph.py SOURCE_DIR ALLOWED [LIMIT]"""
import os
import re
import sys

root, allowed_path = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 80
files = []
for d, _, fs in os.walk(os.path.join(root, "harness")):
    files += [os.path.join(d, f) for f in fs if f.endswith((".c", ".cu", ".cc"))]
files.sort()


def module(path):
    b = os.path.basename(path).rsplit(".", 1)[0]
    return b[: -len("_private")] if b.endswith("_private") else b


def strip(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "defined"}
defs, bodies, long_fns = {}, {}, []
for p in files:
    s = strip(open(p, errors="replace").read())
    bodies[p] = s
    lines = s.split("\n")
    for i, line in enumerate(lines):
        if line != "{":
            continue
        # the definition's head: the lines above, back to one that starts at column 0
        j = i - 1
        while j > 0 and (lines[j][:1] in (" ", "\t") or lines[j] == ""):
            j -= 1
        head = " ".join(lines[j:i])
        m = re.search(r"([A-Za-z_]\w*)\s*\([^;]*\)\s*(__attribute__.*)?$", head)
        if not m or m.group(1) in KEYWORDS:
            continue
        name = m.group(1)
        end = next((k for k in range(i + 1, len(lines)) if lines[k] == "}"), i)
        if end - i - 1 > limit:
            long_fns.append((os.path.relpath(p, root), name, end - i - 1))
        if not re.match(r"\s*static\b", head):
            defs.setdefault(name, module(p))

fails = 0
calls = {}
for p, s in bodies.items():
    m = module(p)
    for c in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", s)):
        t = defs.get(c)
        if t and t != m:
            calls.setdefault(m, {}).setdefault(t, c)
allowed, allowed_circles = set(), set()
if os.path.exists(allowed_path):
    for line in open(allowed_path):
        line = line.split("#", 1)[0].split()
        if len(line) == 3 and line[0] == "long":
            allowed.add((line[1], line[2]))
        elif len(line) == 3 and line[0] == "circle":
            allowed_circles.add(tuple(sorted(line[1:])))
        elif line:
            print(f"FAIL: {allowed_path}: cannot read '{' '.join(line)}'")
            fails += 1
seen = set()
for a, targets in sorted(calls.items()):
    for b, fn in sorted(targets.items()):
        back = calls.get(b, {}).get(a)
        pair = tuple(sorted((a, b)))
        if back and pair not in seen:
            seen.add(pair)
            if pair not in allowed_circles:
                print(f"FAIL: a two-file call circle: {a} calls {fn} of {b}, {b} calls {back} of {a}")
                fails += 1
for a, b in sorted(allowed_circles - seen):
    print(f"FAIL: the call circle {a} <-> {b} is listed in {os.path.basename(allowed_path)} but is gone: take it off the list")
    fails += 1
found = {(p, n) for p, n, _ in long_fns}
for p, n, k in sorted(long_fns):
    if (p, n) not in allowed:
        print(f"FAIL: {p}: {n} has {k} lines (at most {limit}): split it")
        fails += 1
for p, n in sorted(allowed - found):
    print(f"FAIL: {p}: {n} is listed as long in {os.path.basename(allowed_path)} but is not (any more): take it off the list")
    fails += 1
print(f"callgraph: {len(files)} files, {len(defs)} functions, {len(long_fns)} over {limit} lines "
      f"({len(allowed)} listed), {len(seen)} two-file call circles ({len(allowed_circles)} listed), "
      f"{fails} failure(s)")
sys.exit(1 if fails else 0)
