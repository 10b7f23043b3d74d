/* izb_cpu_isa.h — private to the CPU backend's stage files (recon.c, binning.c, cull.c, raster.c):
 * the hot loops of kernels.h, one copy per instruction set, and which copy runs. Copies exist
 * for AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3) and the baseline; every one gives the same bits.
 */
#ifndef IZB_CPU_ISA_H
#define IZB_CPU_ISA_H

#include "izb_cpu_stages.h"
#include "izb_aa.h"
#include "izb_soft.h"
#include "izb_area.h"

/* One instruction set's copy of the hot loops (see kernels.h for each contract). */
typedef struct izb_cpu_kernels {
    izb_cpu_isa isa;
    const char *name;
    uint32_t (*recon_rows)(const izb_recon *f, const float *depth, int y0, int y1, uint8_t *mask,
                           izb_point *points, izb_bbox *box);
    void (*face_count_rows)(const izb_recon *f, const float (*m)[16], const float *depth, int y0, int y1,
                            uint32_t *count, int8_t *block_face);
    void (*recon_faces_rows)(const izb_recon *f, const float (*m)[16], const float *depth, int y0, int y1,
                             const int8_t *block_face, uint8_t *mask, izb_point *const *out, uint32_t *count,
                             izb_bbox *box);
    void (*cell_hash)(const izb_point *in, int64_t n, const izb_grid *g, uint32_t *hash);
    void (*k1_tris)(const izb_tri *tris, int i0, int i1, const izb_cpu_points *p, const uint32_t *cell_start,
                    const uint32_t *cell_end, const izb_grid *g, const izb_own *own, const izb_cut *cut,
                    uint64_t *hits, uint64_t *done);
    void (*k2_group)(const izb_tri *tris, int nt, int gx, int gy, int side, const izb_cpu_points *p,
                     const uint32_t *cell_start, const uint32_t *cell_end, const izb_grid *g, const izb_own *own,
                     const izb_cut *cut, uint64_t *hits, uint64_t *done);
    void (*cull_bundle)(const float *xyz, int64_t i0, const float *light, const izb_bbox *pb, uint32_t cullable,
                        uint32_t *front, uint32_t *cross, float (*te)[16]);
    void (*cull_emit)(const float (*te)[16], uint32_t keep, int64_t i, izb_tri *out,
                      uint32_t *tri_id);
    uint32_t (*soft_row)(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,
                         const izb_cpu_points *p, uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own,
                         const izb_cut *cut, bool shared);
    int64_t (*soft_setup)(const float *xyz, int64_t i0, int64_t i1, const float *light, const izb_soft_light *L,
                          float zmax, const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out,
                          uint32_t *tri_id);
    void (*aa_tri)(const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S, const izb_cpu_points *p,
                   const izb_cpu_aa_feet *F, const uint32_t *cell_start, const uint32_t *cell_end,
                   const float *cell_box, const izb_grid *g, float ex, float ey, const izb_own *own,
                   const izb_cut *cut, uint32_t *masks, bool shared, int gx, int gy, int side,
                   izb_cpu_aa_counts *n);
    void (*aa_footprints)(const izb_recon *f, const izb_aa_view *V, const float *depth, const uint32_t *ids,
                          const float *xyz, uint32_t tri_count, const izb_cpu_points *p, int64_t j0, int64_t j1,
                          const izb_cpu_aa_feet *F, float *ex, float *ey);
    void (*face_reach)(const float (*w)[4], const float *xyz, int64_t i0, int64_t i1, float margin, uint8_t *reach);
    /* soft_row and soft_setup for an area light (izb_area.h) */
    uint32_t (*area_row)(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,
                         const izb_cpu_points *p, uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own,
                         const izb_cut *cut, bool shared);
    int64_t (*area_setup)(const float *xyz, int64_t i0, int64_t i1, const float *light, const izb_soft_light *L,
                          float zmax, const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out,
                          uint32_t *tri_id);
} izb_cpu_kernels;

/* The area light's copies (kernels_area.h, compiled by isa_area.c), which the table names */
#define IZB_CPU_AREA_DECL(SUFFIX)                                                                            \
    uint32_t izb_cpu_area_row_##SUFFIX(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,    \
                                       const izb_cpu_points *p, uint32_t j0, uint32_t j1, uint32_t *masks,  \
                                       const izb_own *own, const izb_cut *cut, bool shared);                \
    int64_t izb_cpu_area_setup_##SUFFIX(const float *xyz, int64_t i0, int64_t i1, const float *light,        \
                                        const izb_soft_light *L, float zmax, const izb_bbox *pb,            \
                                        const izb_cull_view *cull, izb_soft_tri *out, uint32_t *tri_id);
IZB_CPU_AREA_DECL(base)
IZB_CPU_AREA_DECL(avx2)
IZB_CPU_AREA_DECL(avx512)

/* The anti-aliased frames' copies (kernels_aa.h, kernels_aa_foot.h: isa_aa.c, isa_aa_foot.c), which the table names */
#define IZB_CPU_AA_DECL(SUFFIX)                                                                              \
    void izb_cpu_aa_tri_##SUFFIX(const izb_tri *t, uint32_t scene_id, const izb_aa_samples *S,              \
                                 const izb_cpu_points *p, const izb_cpu_aa_feet *F, const uint32_t *cell_start, \
                                 const uint32_t *cell_end, const float *cell_box, const izb_grid *g, float ex,  \
                                 float ey, const izb_own *own, const izb_cut *cut, uint32_t *masks, bool shared, \
                                 int gx, int gy, int side, izb_cpu_aa_counts *n);                              \
    void izb_cpu_aa_footprints_##SUFFIX(const izb_recon *f, const izb_aa_view *V, const float *depth,        \
                                        const uint32_t *ids, const float *xyz, uint32_t tri_count,           \
                                        const izb_cpu_points *p, int64_t j0, int64_t j1,                     \
                                        const izb_cpu_aa_feet *F,                                            \
                                        float *ex, float *ey);
IZB_CPU_AA_DECL(base)
IZB_CPU_AA_DECL(avx2)
IZB_CPU_AA_DECL(avx512)

/* The copy for `isa`, or NULL when this CPU or this build lacks it. IZB_CPU_ISA_AUTO: the best
 * this CPU runs, no better than the environment variable IZB_CPU_ISA says (base, avx2, avx512:
 * for measuring one against another; any other value is ignored with one warning). */
const izb_cpu_kernels *izb_cpu_kernels_get(izb_cpu_isa isa);

/* x >= lo, x ≡ r (mod m): the first such value (kernel2's interleave) */
static inline int izb_cpu_first_congruent(int lo, int r, int m)
{
    int d = (r - lo) % m;
    return lo + (d < 0 ? d + m : d);
}

#endif
