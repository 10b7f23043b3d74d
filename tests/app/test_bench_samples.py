#!/usr/bin/env python3
"""test_bench_samples.py — scripts/bench-samples on real headless runs (suite gl; exit 77 without a
GL 4.5 context): a tiny size and few frames of the moving-light path.
 - exit 0 and a summary with one row per configuration (N = 1, 4, 8, 16, 32; M = 16 .. 256 at the
   given angle; the given angles at M = 64), a whole PNG plot (with gnuplot), no temporary file; each row's shadow_samples / light_angle_deg / light_samples taken from its run's
   own log (so a run that ignored its option shows), timings that parse, min <= median <= p95, and
   the hard run's ratio exactly 1;
 - every per-frame log has the path's frames less frame 0 plus frame 0 itself, one row each;
 - an output folder that cannot be written: exit 1, one line naming it, no traceback.
usage: test_bench_samples.py PATH-TO-izb-shadows PATH-TO-bench-samples"""
import csv, os, re, shutil, subprocess, sys, tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def main():
    exe, script = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="test_bench_samples.") as tmp:
        out = os.path.join(tmp, "out")
        cmd = [sys.executable, script, "--exe", exe, "--out", out, "--size", "64x36", "--path-fps", "1",
               "--threads", "1", "--angle", "3", "--angles", "1,4"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0 and "no OpenGL 4.5 core context" in r.stderr:
            print("SKIP: " + r.stderr.strip().splitlines()[-1])
            return 77
        check(r.returncode == 0 and "Traceback" not in r.stderr, "exit %d: %s" % (r.returncode, r.stderr[-400:]))
        rows = []
        with open(os.path.join(out, "summary.md")) as f:
            for line in f:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) == 8 and cells[0] not in ("run", "---") and not cells[0].startswith("-"):
                    rows.append(cells)
        want = [("1", "0.000", "")] + [(str(n), "0.000", "") for n in (4, 8, 16, 32)]
        want += [("1", "3.000", str(m)) for m in (16, 32, 64, 128, 256)]
        want += [("1", "%.3f" % d, "64") for d in (1, 4)]
        check(len(rows) == len(want), "%d summary rows, want %d" % (len(rows), len(want)))
        for row, (n, ang, m) in zip(rows, want):
            check((row[1], row[2], row[3]) == (n, ang, m), "row %s: columns %s, want %s" % (row[0], row[1:4], (n, ang, m)))
            t = [float(x) for x in re.findall(r"[0-9.]+", row[5])]
            check(len(t) == 3 and 0 < t[0] <= t[1] <= t[2], "row %s: IZB min/median/p95 %s" % (row[0], row[5]))
        check(bool(rows) and rows[0][7] == "1.00", "the hard run's ratio %s" % (rows[0][7] if rows else None))
        if shutil.which("gnuplot"):
            with open(os.path.join(out, "samples.png"), "rb") as f:
                png = f.read()
            check(png.startswith(b"\x89PNG\r\n\x1a\n") and png.endswith(b"IEND\xaeB`\x82"), "samples.png not a whole PNG")
        check(not [n for n in os.listdir(out) if ".tmp-" in n], "temporary files left in %s" % out)
        logs = sorted(os.listdir(os.path.join(out, "runs")))
        check(len(logs) == len(want), "%d logs" % len(logs))
        for name in logs:
            with open(os.path.join(out, "runs", name)) as f:
                frames = [int(x["frame"]) for x in csv.DictReader(f)]
            check(frames == list(range(len(frames))) and len(frames) > 2, "%s: frames %s" % (name, frames[:5]))
        # an output folder under a regular file: cannot be made
        blocker = os.path.join(tmp, "file")
        open(blocker, "w").close()
        r = subprocess.run(cmd[:5] + [os.path.join(blocker, "out")] + cmd[6:], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        check(r.returncode == 1 and "Traceback" not in r.stderr and blocker in r.stderr,
              "unwritable --out: exit %d: %s" % (r.returncode, r.stderr[-300:]))
    for f in failures:
        print("FAIL: " + f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
