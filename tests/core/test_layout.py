#!/usr/bin/env python3
"""test_layout.py — every include arrow points down the layout of DESIGN.md:

    app -> render -> scene, cpu, cuda -> core      (tools/ and tests/ may include anything)

so core/ includes nothing from the folders above it (the seam names no backend), scene/, cpu/ and
cuda/ never include one another, no two folders include each other (no include cycle between files
of different folders), core/meson.build links no backend, and no scene loader calls back into the
scene dispatcher (scene/scene.c). Reads the sources only; run as `test_layout.py SOURCE_ROOT`.
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

# The dispatcher calls the loaders, never the other way: no other scene/ file calls a function
# that scene/scene.c defines.
dispatcher = os.path.join(ROOT, "scene", "scene.c")
if os.path.exists(dispatcher):
    text = open(dispatcher).read()
    defined = set(re.findall(r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;]*?\)\s*\{", text, re.M))
    for rel in files:
        if not rel.startswith("scene/") or rel == "scene/scene.c" or not rel.endswith(".c"):
            continue
        body = open(os.path.join(ROOT, rel)).read()
        for fn in sorted(defined):
            m = re.search(r"\b" + re.escape(fn) + r"\s*\(", body)
            if m:
                line = body.count("\n", 0, m.start()) + 1
                fail(f"{rel}:{line}: calls {fn}, defined by the dispatcher scene/scene.c (a call cycle)")

print(f"layout: {len(files)} files, {checked} includes inside the repository, {len(arrows)} folder arrows")
if checked < 100:
    fail(f"only {checked} includes found: the scan is broken")
sys.exit(1 if failures else 0)
