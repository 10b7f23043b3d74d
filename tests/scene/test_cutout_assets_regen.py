#!/usr/bin/env python3
"""test_cutout_assets_regen.py ROOT -- scripts/make-cutout-assets, run into a temporary folder, must
write exactly the cut-out files committed in assets/ (same names, same bytes): the assets are the
script's output, not hand edits. (zlib's output is stable across its versions for one level in
practice; a zlib that compresses differently would show here as a PNG that differs.)"""
import filecmp
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, os.path.join(root, "scripts", "make-cutout-assets"), tmp], check=True)
    made = sorted(os.listdir(tmp))
    committed = sorted(f for f in os.listdir(os.path.join(root, "assets")) if f.startswith("cutout-"))
    bad = []
    if made != committed:
        bad.append("files differ: made %s, committed %s" % (made, committed))
    for f in made:
        if f in committed and not filecmp.cmp(os.path.join(tmp, f), os.path.join(root, "assets", f), shallow=False):
            bad.append(f + ": bytes differ")
    print("%d files compared" % len(made))
    for b in bad:
        print("FAIL: " + b)
    sys.exit(1 if bad or not made else 0)
