#!/usr/bin/env bash
# bench-dynamic.sh — frame time against triangle count on a moving scene (builtin:wave:N, every
# triangle but the ground moves every frame): the IZB (izb_update_scene + a frame, CPU backend)
# against Embree static rays (BVH built once: the rays alone) and Embree per-frame rebuild / refit
# + rays, same points and threads, one process per size (tools/bench_dynamic.c).
#   scripts/bench-dynamic.sh [OUT_DIR] [SIZES...]     defaults: docs, 10k 30k 100k 300k 1M 2M 4M
# Env: BUILD_DIR (build), RES (1920x1080), FRAMES (5), WARMUP (1), THREADS (0 = all), LIGHT (dir|spot);
# PLOT_ONLY=1 redraws the plot from an existing OUT_DIR/bench-dynamic.csv without running anything.
# Writes OUT_DIR/bench-dynamic.csv (median/min/p95 ms per method and size) and
# OUT_DIR/bench-dynamic.png; each is written under a temporary name and renamed once complete.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs}
[ $# -gt 0 ] && shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10k 30k 100k 300k 1M 2M 4M)
build=${BUILD_DIR:-build}
exe=$build/tools/bench-dynamic
csv=$out/bench-dynamic.csv
if [ -z "${PLOT_ONLY:-}" ]; then
  [ -x "$exe" ] || { echo "bench-dynamic.sh: $exe missing (build with Embree: scripts/setup.sh test)" >&2; exit 1; }
  spot=(); [ "${LIGHT:-dir}" = spot ] && spot=(--spot)
  mkdir -p "$out"
  echo "tris,width,height,light,method,min,median,p95" > "$csv.tmp"
  for n in "${sizes[@]}"; do
    echo "bench-dynamic.sh: builtin:wave:$n" >&2
    "$exe" --scene "builtin:wave:$n" --size "${RES:-1920x1080}" --frames "${FRAMES:-5}" --warmup "${WARMUP:-1}" \
      --threads "${THREADS:-0}" "${spot[@]}" --csv >> "$csv.tmp"
  done
  mv "$csv.tmp" "$csv"
fi
# one column per method: tris izb embree-static embree-rebuild embree-low embree-refit (medians)
awk -F, 'NR > 1 { v[$1, $5] = $7; t[$1] = 1 }
  END { for (n in t) print n, v[n, "izb"], v[n, "embree-static"], v[n, "embree-rebuild"], v[n, "embree-low"],
        v[n, "embree-refit"] }' "$csv" | sort -n > "$out/bench-dynamic.dat.tmp"
gnuplot <<GP
set terminal pngcairo size 900,560 font ",11"
set output "$out/bench-dynamic.png.tmp"
set title "Moving scene (builtin:wave:N), ${RES:-1920x1080}, ${LIGHT:-dir} light, threads ${THREADS:-0} (0 = all) of $(nproc): median ms"
set xlabel "triangles"; set ylabel "ms per frame (median)"
set logscale xy; set grid; set key top left
plot "$out/bench-dynamic.dat.tmp" u 1:2 w lp lw 2 t "IZB (update + frame)", \
     "" u 1:4 w lp t "Embree rebuild + rays", "" u 1:5 w lp t "Embree rebuild (low quality) + rays", \
     "" u 1:6 w lp t "Embree refit + rays", "" u 1:3 w lp dt 2 t "Embree static (rays only, no update)"
GP
mv "$out/bench-dynamic.png.tmp" "$out/bench-dynamic.png"
rm -f "$out/bench-dynamic.dat.tmp"
echo "bench-dynamic.sh: wrote $csv and $out/bench-dynamic.png" >&2
