/* mode_sweep.h — the CPU backend in every mode against a test's brute-force masks, shared by the
 * random-scene tests of the soft and area paths (test_cpu_soft, test_cpu_area): every kernel x
 * binning x culling mode, with and without primitive ids, on a 1- and a 3-thread backend in turn,
 * and on every fifth seed under each ISA (IZB_CPU_ISA). Header-only, one test per executable. */
#ifndef TEST_MODE_SWEEP_H
#define TEST_MODE_SWEEP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "izb.h"
#include "test.h"

/* want: the brute force's masks, [culling auto, on, off][without ids, with ids], each `stride`
 * bytes apart; light_desc: the light's words in a failure's line (its samples and size). Every mask must
 * equal the one for its culling mode byte for byte. */
static void check_every_mode(izb_backend *b1, izb_backend *b3, const izb_recon *f, const float *depth,
                             const uint32_t *ids, const uint8_t *want, size_t stride, uint64_t seed,
                             const char *light_desc, int nt)
{
    const int n = f->width * f->height;
    uint8_t *got = test_xcalloc((size_t)n, 1);
    const bool all_isas = seed % 5 == 0;
    const char *isas[3] = {"base", "avx2", "avx512"};
    for (int isa = 0; isa < (all_isas ? 3 : 1); isa++) {
        if (all_isas) setenv("IZB_CPU_ISA", isas[isa], 1);
        for (int mode = 0; mode < 12; mode++) {
            const izb_settings s = {.kernel = mode % 2 ? IZB_KERNEL2 : IZB_KERNEL1,
                                    .binning = mode / 2 % 2 ? IZB_BINNING_ATOMIC : IZB_BINNING_RADIX,
                                    .cull = (izb_cull)(IZB_CULL_AUTO + mode / 4)};
            for (int with_ids = 0; with_ids < 2; with_ids++) {
                izb_backend *b = (mode + with_ids) % 2 ? b3 : b1;
                memset(got, 7, (size_t)n);
                const bool ok = izb_shade_arrays_ids(b, f, &s, depth, with_ids ? ids : NULL, got, NULL);
                const uint8_t *w = want + (size_t)(mode / 4 * 2 + with_ids) * stride;
                int first;
                const int bad = mismatching(got, w, n, &first);
                CHECK(ok && bad == 0,
                      "seed %llu (isa %s, kernel %s, %s, cull %s, %s, %s, %d tris): %d of %d pixels differ "
                      "(first %d: %d, want %d)",
                      (unsigned long long)seed, all_isas ? isas[isa] : "auto", izb_kernel_name(s.kernel),
                      izb_binning_name(s.binning), izb_cull_name(s.cull), with_ids ? "ids" : "no ids",
                      light_desc, nt, bad, n, first, first >= 0 ? got[first] : 0, first >= 0 ? w[first] : 0);
            }
        }
    }
    if (all_isas) unsetenv("IZB_CPU_ISA");
    free(got);
}

#endif
