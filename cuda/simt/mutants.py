#!/usr/bin/env python3
"""mutants.py — plant known bugs in copies of the real kernels and show the gpu suite failing on each.

Usage: cuda/simt/mutants.py [--work DIR] [--log FILE]

Copies the source tree (tracked and untracked files, no build folders) to DIR/src, configures the
SIMT-emulated build in DIR/build once, then for each mutant: edits the copy of one cuda/*.cu file
(an exact text that must occur once, so a changed kernel is noticed instead of silently testing
nothing), rebuilds the gpu test that covers it, runs it and requires a failure (not a pass, not a
skip, not a timeout), and puts the file back. Exit status 0 only when every mutant was killed.
--log writes one Meson-testlog-style JSON line per mutant ({"name", "result": "OK"|"FAIL"}) so CI's
closing line can count them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (name, file, original text, mutated text, gpu test that must fail)
MUTANTS = [
    ("missing barrier: thread 0 publishes the block's point offsets (s_off, s_base) without __syncthreads",
     "cuda/recon.cu",
     "        s_base = sum ? atomicAdd(&info->points, sum) : 0u; /* one global atomic per block */\n    }\n"
     "    __syncthreads();\n",
     "        s_base = sum ? atomicAdd(&info->points, sum) : 0u; /* one global atomic per block */\n    }\n",
     "test_cuda_recon"),
    ("early return before a collective: kernel2's lanes past the tile's last triangle return before __ballot_sync",
     "cuda/raster.cu",
     "            bool hit = false;\n",
     "            if (j >= count)\n                return;\n            bool hit = false;\n",
     "test_cuda_raster"),
    ("off-by-one tail guard: the radix binning's hash kernel stops one point early (its key stays poison)",
     "cuda/binning.cu",
     "    if (i >= n)\n        return;\n    const izb_point p = point_load(points, i);\n    keys[i] = izb_cell_hash",
     "    if (i + 1 >= n)\n        return;\n    const izb_point p = point_load(points, i);\n    keys[i] = izb_cell_hash",
     "test_cuda_binning"),
    ("off-by-one triangle id: the cull scatter writes each survivor's scene index plus one into tri_id",
     "cuda/cull.cu",
     "        if (tri_id) tri_id[j] = i;\n",
     "        if (tri_id) tri_id[j] = i + 1;\n",
     "test_cuda_cull"),
    ("missing stream sync: the host reads the pinned frame info before the stream got there",
     "cuda/backend.cu",
     "    CUDA_TRY(cudaStreamSynchronize(st));\n    const cuda_frame_info info = *b->h_info;\n",
     "    const cuda_frame_info info = *b->h_info;\n",
     "test_cuda_backend"),
    # the random cases of tests/differential_gen.h find what the fixed scenes do not: a spot light
    # inside a closed mesh, and a closed mesh moved around the light between frames
    ("cull auto with a spot light culls as for a directional one (inside a closed mesh: its back faces lost)",
     "cuda/backend.cu",
     "{0.0f, 0.0f, 0.0f},\n                            f->light_is_spot, 0.0f};",
     "{0.0f, 0.0f, 0.0f},\n                            false, 0.0f};",
     "test_cuda_differential"),
    ("izb_update_scene uploads the moved triangles but not the closed meshes' new boxes",
     "cuda/backend.cu",
     "nb = boxes && b->have_closed ? b->box_floats : 0;",
     "nb = 0;",
     "test_cuda_differential"),
    # cut-outs (issue 18): random alpha-tested cards against the CPU backend
    ("kernel2 skips the alpha test: a cut-out survivor's hits count as an opaque triangle's",
     "cuda/raster.cu",
     "                    k2_cells<UNIT, true>(",
     "                    k2_cells<UNIT, false>(",
     "test_cuda_cutout"),
]


def copy_tree(dst):
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           check=True, capture_output=True).stdout.decode().split("\0")
    for f in files:
        if not f or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dst, f))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=os.path.join(ROOT, "build-mutants"))
    ap.add_argument("--log")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    if os.path.isdir(src):
        shutil.rmtree(src)
    copy_tree(src)
    if not os.path.isfile(os.path.join(build, "build.ninja")):
        r = run(["meson", "setup", build, src, "-Dcuda=disabled", "-Dsimt=enabled", "--buildtype=release"])
        if r.returncode:
            sys.exit("mutants: meson setup failed:\n" + r.stdout + r.stderr)
    results, survivors = [], 0
    for name, path, before, after, test in MUTANTS:
        target = os.path.join(src, path)
        text = open(target, encoding="utf-8").read()
        if text.count(before) != 1:
            sys.exit(f"mutants: {path} no longer contains the text to mutate exactly once ({name}); update mutants.py")
        try:
            open(target, "w", encoding="utf-8").write(text.replace(before, after))
            r = run(["ninja", "-C", build, f"tests/cuda/{test}"])
            if r.returncode:
                sys.exit(f"mutants: the mutant does not compile ({name}):\n" + r.stdout[-3000:])
            t0 = time.time()
            try:
                r = run([os.path.join(build, "tests", "cuda", test)], timeout=a.timeout, cwd=build)
                code, out = r.returncode, r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                code, out = None, "timeout"
            secs = time.time() - t0
        finally:
            open(target, "w", encoding="utf-8").write(text)
        killed = code is not None and code != 0 and code != 77
        survivors += not killed
        evidence = next((l for l in out.splitlines() if "FAULT" in l or "failed" in l or "FAIL" in l), out[-300:])
        status = "killed" if killed else "SURVIVED"
        print(f"mutant {status}: {name}\n  {path}, {test}: exit {code} after {secs:.1f} s\n  {evidence[:400]}")
        results.append({"name": "mutant: " + name, "result": "OK" if killed else "FAIL"})
    if a.log:
        with open(a.log, "w", encoding="utf-8") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    print(f"mutants: {len(MUTANTS) - survivors} of {len(MUTANTS)} killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
