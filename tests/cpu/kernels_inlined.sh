#!/bin/sh
# kernels_inlined.sh LIB — are the per-ISA hot loops (cpu/isa.c, in the kernels library LIB) free of
# out-of-line copies of the shared headers' math? A header function (izb_math.h and siblings) that
# GCC leaves out of line is compiled once, for the baseline target of the file: its fmaf calls are
# libm calls and the AVX2/AVX-512 loop that calls it no longer vectorises. Nothing else shows it:
# the bits are the same, only the time is not (it happened: the inliner's unit-growth cap was
# reached once isa.c held the soft, aa and point-light kernels, and culling ran ~20x slower).
# Passes when every local function of the library is an ISA copy (name_base, name_avx2,
# name_avx512) or on the list below of functions that are out of line on purpose. Skipped (77)
# where the library has no AVX-512 copy (not GCC on x86-64: isa.c builds the baseline only).
set -eu
lib=${1:?usage: kernels_inlined.sh LIBRARY}
NM=${NM:-nm}
syms=$("$NM" --defined-only "$lib") || { echo "kernels_inlined: $NM failed on $lib"; exit 1; }
echo "$syms" | grep -q '_avx512$' || { echo "kernels_inlined: no AVX-512 copies in $lib: skipped"; exit 77; }
# Out of line on purpose: izb_hit_is_own runs per hit of a point's own-plane check, in double (no
# fmaf), and is cold next to the block loop (its callers queue hits for it: kernels_raster.h).
allowed='^izb_hit_is_own([.].*)?$'
bad=$(echo "$syms" | awk '$2 == "t" { print $3 }' | grep -Ev '_(base|avx2|avx512)$' | grep -Ev "$allowed" || true)
count=$(echo "$syms" | awk '$2 == "t" || $2 == "T"' | wc -l)
if [ -n "$bad" ]; then
    echo "kernels_inlined: out-of-line functions in the per-ISA kernels (compiled for the baseline):"
    echo "$bad"
    exit 1
fi
echo "kernels_inlined: $count functions, every local one an ISA copy or allowed"
