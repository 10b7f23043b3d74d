#!/usr/bin/env python3
"""test_layout.py — every include arrow points down the layout of DESIGN.md:

    app -> render -> scene, cpu, cuda -> core      (tools/ and tests/ may include anything)

so core/ includes nothing from the folders above it (the seam names no backend), scene/, cpu/ and
cuda/ never include one another, no two folders include each other (no include cycle between files
of different folders), core/meson.build links no backend, no scene loader calls back into the
scene dispatcher (scene/scene.c), and no two files of scene/ call each other (helpers the loaders
share live in leaves). Reads the sources only; run as `test_layout.py SOURCE_ROOT`.
A planted arrow up (core/izb.c including "izb_cpu.h", say) fails with the file, line and rule."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
RANK = {"core": 0, "cpu": 1, "cuda": 1, "scene": 1, "render": 2, "app": 3, "tools": 4}
SOURCE_EXT = (".c", ".h", ".cu", ".cuh", ".cpp", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def folder_of(rel):
    top = rel.split("/")[0]
    return top if top in RANK else None


def sources():
    for top in RANK:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                if n.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, n), ROOT)


files = list(sources())
by_name = {}
for rel in files:
    by_name.setdefault(os.path.basename(rel), []).append(rel)


def resolve(src, name):
    """The repository file an include names: relative to the including file first, then by its bare
    name anywhere in the layout (the build adds every folder's include directory). None: outside
    the repository (system headers) or generated at build time (izb_config.h, shaders_embedded.h)."""
    here = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if os.path.exists(os.path.join(ROOT, here)):
        return here
    hits = by_name.get(os.path.basename(name), [])
    if len(hits) > 1:
        fail(f"{src}: include \"{name}\" is ambiguous: {', '.join(hits)}")
    return hits[0] if hits else None


arrows = set()
checked = 0
for src in files:
    text = open(os.path.join(ROOT, src), encoding="utf-8", errors="replace").read()
    a = folder_of(src)
    for m in INCLUDE.finditer(text):
        dst = resolve(src, m.group(1))
        if not dst:
            continue
        b = folder_of(dst)
        line = text.count("\n", 0, m.start()) + 1
        checked += 1
        if b is None or a == b:
            continue
        arrows.add((a, b))
        if a == "tools":
            continue
        if RANK[b] >= RANK[a]:
            why = "a folder of the same level" if RANK[b] == RANK[a] else "a folder above it"
            fail(f"{src}:{line}: includes {dst} ({why}: {a} -> {b} breaks app -> render -> scene/cpu/cuda -> core)")

for a, b in sorted(arrows):
    if (b, a) in arrows:
        fail(f"include cycle between folders {a}/ and {b}/")

# core/meson.build builds the seam alone: no backend, scene, render or app library linked into it
core_build = open(os.path.join(ROOT, "core", "meson.build")).read()
for word in ("cuda_libs", "cuda_lib", "cpu_lib", "scene_lib", "render_lib", "app_lib"):
    if re.search(r"\b" + word + r"\b", core_build):
        fail(f"core/meson.build names {word}: the seam links no backend")

# The dispatcher calls the loaders, never the other way, and what they share lives in leaves: no
# other scene/ file calls a function that scene/scene.c defines, and no two scene/ files call each
# other, directly or round a longer loop (a call cycle between files). Calls are looked for in the
# code only: comments and string literals are blanked first, so prose that names a function is not
# a call.
LITERAL_OR_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
DEFINITION = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;]*?\)\s*\{", re.M)


def code_only(text):
    """text with comments and string/char literals blanked (newlines kept, so line numbers hold)"""
    return LITERAL_OR_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


scene_c = sorted(rel for rel in files if rel.startswith("scene/") and rel.endswith(".c"))
code = {rel: code_only(open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace").read()) for rel in scene_c}
defines = {rel: set(DEFINITION.findall(body)) for rel, body in code.items()}
calls = {}  # (caller file, callee file) -> [(line, function)]: each function's first call
for rel, body in code.items():
    for dst, fns in defines.items():
        if dst == rel:
            continue
        for fn in sorted(fns):
            m = re.search(r"\b" + re.escape(fn) + r"\s*\(", body)
            if m:
                calls.setdefault((rel, dst), []).append((body.count("\n", 0, m.start()) + 1, fn))

DISPATCHER = "scene/scene.c"
if DISPATCHER not in code:
    fail(f"{DISPATCHER} not found: the scene dispatcher's check has nothing to check")
for (rel, dst), found in sorted(calls.items()):
    for line, fn in found if dst == DISPATCHER else ():
        fail(f"{rel}:{line}: calls {fn}, defined by the dispatcher {DISPATCHER} (a call cycle)")


def call_cycles(nodes, edges):
    """strongly connected components of more than one file (Tarjan)"""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


edges = {}
for rel, dst in calls:
    edges.setdefault(rel, set()).add(dst)
for comp in call_cycles(scene_c, edges):
    how = "; ".join(f"{a}:{calls[(a, b)][0][0]} calls {calls[(a, b)][0][1]} ({b})"
                    for a in comp for b in comp if (a, b) in calls)
    fail(f"call cycle between {', '.join(comp)}: {how}")

print(f"layout: {len(files)} files, {checked} includes inside the repository, {len(arrows)} folder arrows")
if checked < 100:
    fail(f"only {checked} includes found: the scan is broken")
sys.exit(1 if failures else 0)
