#!/usr/bin/env python3
"""test_plot_log.py — scripts/plot-log on the logs the program really writes (suite gl: the logs
come from headless runs; exit 77 without a GL 4.5 context or without gnuplot).

 - one log per shadow mode (izb, map, diff, none), one of three lights (with a summary line and a line
   in its own colour per light that ran), and one that mixes them (--switch-every 1 cycles
   the M key among others): exit 0, a whole PNG (signature, IHDR, IEND, pixels that decode to the
   declared size and are not one flat colour); the summary has figures for exactly the passes
   whose cells are filled in the log, and they are min/median/p95 of those cells only (a blank cell
   is a pass that did not run, never a 0); the PNG shows the colour of each pass that ran and not of
   one that did not (the shadow map's sm_ms in map/diff, shading always, no IZB stage in map/none);
 - an empty file, a header with no rows, a cut row, a non-number, a file that is not a log, a
   missing file: exit 2, one line on stderr, no traceback, no PNG and no temporary file left;
 - gnuplot dying half way through its PNG (a stand-in gnuplot on PATH): exit 1, no PNG at the
   output path, a PNG already there untouched, no temporary file left.
usage: test_plot_log.py PATH-TO-izb-shadows PATH-TO-plot-log"""
import csv, os, re, stat, struct, subprocess, sys, tempfile, zlib

# plot-log's fixed palette (scripts/plot-log PASSES): the colour of each pass's band and key swatch
PALETTE = {"depth_pass_ms": (0x4e, 0x79, 0xa7), "reconstruct_ms": (0xf2, 0x8e, 0x2b),
           "binning_ms": (0xe1, 0x57, 0x59), "culling_ms": (0x76, 0xb7, 0xb2), "raster_ms": (0x59, 0xa1, 0x4f),
           "transfer_ms": (0xed, 0xc9, 0x48), "sm_ms": (0xb0, 0x7a, 0xa1), "shading_ms": (0x9c, 0x75, 0x5f)}
# plot-log's LIGHTS: one line per light in a log of several
LIGHT_PALETTE = [(0xd6, 0x27, 0x28), (0x1f, 0x77, 0xb4), (0x2c, 0xa0, 0x2c), (0xff, 0x7f, 0x0e), (0x94, 0x67, 0xbd),
                 (0x8c, 0x56, 0x4b), (0xe3, 0x77, 0xc2), (0x17, 0xbe, 0xcf)]
IZB_STAGES = ["reconstruct_ms", "binning_ms", "culling_ms", "raster_ms", "transfer_ms"]
PASSES = ["depth_pass_ms"] + IZB_STAGES + ["sm_ms", "shading_ms"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def run(cmd, env=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=240)


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def png_pixels(data):
    """(width, height, set of RGB colours) of an 8-bit RGB/RGBA non-interlaced PNG, or a reason."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "no PNG signature"
    pos, chunks = 8, []
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if len(body) != n or len(data) < pos + 12 + n:
            return "chunk %r cut short" % kind
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            return "chunk %r: bad CRC" % kind
        chunks.append((kind, body))
        pos += 12 + n
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND" or pos != len(data):
        return "not IHDR ... IEND"
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 8 or ctype not in (2, 6) or interlace:
        return "unexpected format (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    try:
        raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    except zlib.error as e:
        return "IDAT does not inflate: %s" % e
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        return "IDAT holds %d bytes, %dx%d needs %d" % (len(raw), w, h, h * (stride + 1))
    prev, colours = bytearray(stride), set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0:
                return "row %d: filter %d" % (y, f)
        colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return w, h, {tuple(c) for c in colours}


def parse_summary(out):
    """{column: None (did not run) | (min, median, p95, count or None)} from plot-log's stdout."""
    s = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\w+_ms)\s+min\s+(\S+)\s+median\s+(\S+)\s+p95\s+(\S+)(?:\s+\((\d+) of \d+ frames\))?",
                     line)
        if m:
            s[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)),
                             int(m.group(5)) if m.group(5) else None)
        elif re.match(r"\s+(\w+_ms)\s+\(did not run\)", line):
            s[line.split()[0]] = None
    return s


def check_plot(plot_log, name, csv_path, expect):
    """plot-log on one real log; expect: {pass: True (ran on some frame) | False (on none)}."""
    png = csv_path[:-4] + ".png"
    r = run([plot_log, csv_path])
    ok = check(r.returncode == 0, "%s: exit %d (want 0): %s" % (name, r.returncode, r.stderr.strip()[-300:]))
    check("Traceback" not in r.stderr, "%s: a Python traceback" % name)
    print("".join("  | " + l + "\n" for l in r.stdout.splitlines()), end="")
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    summ = parse_summary(r.stdout)
    for p in ["frame_ms"] + PASSES:
        cells = [float(x[p]) for x in rows if x[p] != ""]
        # what the log says decides what the summary must say
        if not cells:
            check(summ.get(p, "absent") is None, "%s: %s has no filled cell, summary says %r" % (name, p, summ.get(p, "absent")))
            continue
        got = summ.get(p, "absent")
        if not check(isinstance(got, tuple), "%s: %s ran on %d frames, summary says %r" % (name, p, len(cells), got)):
            continue
        want = (min(cells), pct(cells, 0.5), pct(cells, 0.95))
        check(all(abs(g - w) <= 0.0051 for g, w in zip(got[:3], want)),
              "%s: %s min/median/p95 %s, the filled cells give %s" % (name, p, got[:3], tuple(round(w, 2) for w in want)))
        check(got[3] in (None, len(cells)), "%s: %s counted %s frames, %d cells are filled" % (name, p, got[3], len(cells)))
    # the mode decides which passes ran (the log's contract): the summary must agree with it
    for p, ran in expect.items():
        got = summ.get(p, "absent")
        check(isinstance(got, tuple) if ran else got is None,
              "%s: %s should %s, summary says %r" % (name, p, "have figures" if ran else "say 'did not run'", got))
    if not ok:
        return
    if not check(os.path.isfile(png), "%s: no %s" % (name, png)):
        return
    with open(png, "rb") as f:
        data = f.read()
    px = png_pixels(data)
    if not check(isinstance(px, tuple), "%s: %s is not a whole PNG: %s" % (name, png, px)):
        return
    w, h, colours = px
    check(w >= 320 and h >= 200 and len(colours) >= 16 and len(data) > 8000,
          "%s: a trivial PNG: %dx%d, %d colours, %d bytes" % (name, w, h, len(colours), len(data)))
    for p, ran in expect.items():
        check((PALETTE[p] in colours) == ran, "%s: %s's colour %s the plot" %
              (name, p, "missing from" if ran else "drawn in"))
    check(not [e for e in os.listdir(os.path.dirname(png)) if e.endswith(".tmp")],
          "%s: a temporary file left beside the PNG" % name)


def check_lights(plot_log, csv_path, rows):
    """A log of several lights: a summary line per light of the 'lights' column, min/median/p95 of its
    filled cells or 'did not run', and each light that ran drawn in its own colour."""
    r = run([plot_log, csv_path])
    summ = parse_summary(r.stdout)
    count = max(int(x["lights"]) for x in rows)
    for i in range(1, 9):
        c = "light%d_izb_ms" % i
        cells = [float(x[c]) for x in rows if x[c] != ""]
        got = summ.get(c, "absent")
        if i > count:
            check(got == "absent", "lights: %s past the log's %d lights, summary says %r" % (c, count, got))
        elif not cells:
            check(got is None, "lights: %s has no filled cell, summary says %r" % (c, got))
        elif check(isinstance(got, tuple), "lights: %s ran on %d frames, summary says %r" % (c, len(cells), got)):
            want = (min(cells), pct(cells, 0.5), pct(cells, 0.95))
            check(all(abs(g - w) <= 0.0051 for g, w in zip(got[:3], want)),
                  "lights: %s min/median/p95 %s, the cells give %s" % (c, got[:3], want))
    px = png_pixels(open(csv_path[:-4] + ".png", "rb").read())
    if check(isinstance(px, tuple), "lights: no whole PNG: %s" % (px,)):
        for i, colour in enumerate(LIGHT_PALETTE, start=1):
            ran = i <= count and any(x["light%d_izb_ms" % i] != "" for x in rows)
            check((colour in px[2]) == ran, "lights: light %d's colour %s the plot" %
                  (i, "missing from" if ran else "drawn in"))


def check_refused(plot_log, name, path, code, env=None, keep=None):
    """plot-log must fail with CODE, one line on stderr, no traceback, and leave the output as it was."""
    out = os.path.join(os.path.dirname(path), "out-" + name + ".png")
    if keep is not None:
        with open(out, "wb") as f:
            f.write(keep)
    before = set(os.listdir(os.path.dirname(path)))
    r = run([plot_log, path, "--out", out], env=env)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == code, "%s: exit %d (want %d)" % (name, r.returncode, code))
    check("Traceback" not in r.stderr and len(lines) == 1 and lines[0].startswith("plot-log: "),
          "%s: want one 'plot-log: ...' line on stderr, got %r" % (name, r.stderr[-400:]))
    if keep is None:
        check(not os.path.exists(out), "%s: %s was written" % (name, out))
    else:
        with open(out, "rb") as f:
            check(f.read() == keep, "%s: the PNG already at %s was overwritten" % (name, out))
    check(set(os.listdir(os.path.dirname(path))) == before,
          "%s: files left behind: %s" % (name, set(os.listdir(os.path.dirname(path))) ^ before))
    if lines:
        print("  %s: exit %d: %s" % (name, r.returncode, lines[-1]))


def main():
    if len(sys.argv) != 3:
        print("usage: test_plot_log.py PATH-TO-izb-shadows PATH-TO-plot-log", file=sys.stderr)
        return 1
    exe, plot_log = sys.argv[1], sys.argv[2]
    if run(["sh", "-c", "command -v gnuplot"]).returncode != 0:
        print("SKIP: no gnuplot")
        return 77
    with tempfile.TemporaryDirectory(prefix="test_plot_log.") as tmp:
        base = [exe, "--headless", "--width", "160", "--height", "90"]
        modes = {"izb": dict(IZB_STAGES=True, sm=False), "map": dict(IZB_STAGES=False, sm=True),
                 "diff": dict(IZB_STAGES=True, sm=True), "none": dict(IZB_STAGES=False, sm=False)}
        for m, want in modes.items():
            log = os.path.join(tmp, m + ".csv")
            r = run(base + ["--frames", "4", "--shadows", m, "--log", log])
            if r.returncode != 0 and "no OpenGL 4.5 core context" in r.stderr:
                print("SKIP: " + r.stderr.strip().splitlines()[-1])
                return 77
            if not check(r.returncode == 0, "izb-shadows --shadows %s: exit %d: %s" % (m, r.returncode, r.stderr[-300:])):
                continue
            expect = {p: want["IZB_STAGES"] for p in IZB_STAGES}
            expect.update({"sm_ms": want["sm"], "depth_pass_ms": True, "shading_ms": True})
            print("%s-only log:" % m)
            check_plot(plot_log, m, log, expect)
        # several lights (the third at intensity 0): the same plot, and a time per light that ran
        log = os.path.join(tmp, "lights.csv")
        r = run(base + ["--frames", "4", "--light", "spot", "--light", "directional", "--light-dir", "1,-1,0",
                        "--light", "point", "--light-intensity", "0", "--log", log])
        if check(r.returncode == 0, "izb-shadows with 3 lights: exit %d: %s" % (r.returncode, r.stderr[-300:])):
            with open(log, newline="") as f:
                rows = list(csv.DictReader(f))
            check(all(x["lights"] == "3" and x["light1_izb_ms"] and x["light2_izb_ms"] and not x["light3_izb_ms"]
                      and not x["light4_izb_ms"] for x in rows),
                  "3 lights: lights 3, times for lights 1 and 2, none for the dark light 3 or a 4th")
            print("log of 3 lights:")
            expect = {p: True for p in IZB_STAGES}
            expect.update({"sm_ms": False, "depth_pass_ms": True, "shading_ms": True})
            check_plot(plot_log, "lights", log, expect)
            check_lights(plot_log, log, rows)
        # every N frames the next of the keys K, B, U, C, V, T, M, ], [ and a resize: M walks the modes
        log = os.path.join(tmp, "mixed.csv")
        r = run(base + ["--frames", "40", "--switch-every", "1", "--log", log])
        if check(r.returncode == 0, "izb-shadows --switch-every 1: exit %d: %s" % (r.returncode, r.stderr[-300:])):
            with open(log, newline="") as f:
                seen = {x["shadow_mode"] for x in csv.DictReader(f)}
            check(seen == {"izb", "map", "diff", "none"}, "the mixed log has modes %s, want all four" % sorted(seen))
            print("mixed log (%s):" % ", ".join(sorted(seen)))
            check_plot(plot_log, "mixed", log, {p: True for p in PASSES})

        # input that is not a well-formed log: exit 2, one line, nothing written
        with open(os.path.join(tmp, "izb.csv")) as f:
            good = f.read().splitlines()
        cases = {"empty": "", "header-only": good[0] + "\n",
                 "cut-row": "\n".join(good[:2] + [good[2][:len(good[2]) // 2]]) + "\n",
                 "not-a-number": "\n".join(good[:2] + [re.sub(r"^(\d+,[^,]*,)[^,]*", r"\1fast", good[2])]) + "\n",
                 "not-a-log": "a,b,c\n1,2,3\n", "binary": None}
        print("malformed input:")
        for name, text in cases.items():
            path = os.path.join(tmp, name + ".csv")
            with open(path, "wb") as f:
                f.write(text.encode() if text is not None else bytes(range(256)) * 4)
            check_refused(plot_log, name, path, 2)
        check_refused(plot_log, "missing", os.path.join(tmp, "no-such-log.csv"), 2)

        # gnuplot dies half way through the PNG: nothing at the output path, a PNG already there kept
        fake = os.path.join(tmp, "fakebin")
        os.mkdir(fake)
        for name, (code, tail) in {"gnuplot-fails": (1, ""), "gnuplot-cut": (0, "")}.items():
            gp = os.path.join(fake, "gnuplot")
            with open(gp, "w") as f:
                f.write("#!/bin/sh\n# stand-in gnuplot: half a PNG to the script's output, then exit %d\n"
                        "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" | head -n 1)\n"
                        "[ -n \"$out\" ] && printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\015IHDR' > \"$out\"\n"
                        "echo 'gnuplot: stand-in stopped' >&2\nexit %d\n" % (code, code))
            os.chmod(gp, stat.S_IRWXU)
            env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", ""))
            print("%s:" % name)
            check_refused(plot_log, name, os.path.join(tmp, "izb.csv"), 1, env=env)
            check_refused(plot_log, name + "-keep", os.path.join(tmp, "izb.csv"), 1, env=env, keep=b"an older plot")
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
