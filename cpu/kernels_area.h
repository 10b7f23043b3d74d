/* kernels_area.h — an area light's hot loops (izb_area.h): the row of kernels_soft.h with the area
 * pair set-up, and the triangles' area set-up. One copy per instruction set, compiled by
 * cpu/isa_area.c (not isa.c: see there why); the izb_cpu_kernels table names them. */
#if !defined(KERN) || !defined(KERN_AREA_ONLY)
#error "kernels_area.h is included by cpu/isa_area.c only"
#endif

#include "kernels_soft.h"

/* soft_row for an area light: the same box, samples and masks (kernels_soft.h), the area pair set-up */
uint32_t KERN(izb_cpu_area_row)(const izb_soft_tri *t, uint32_t scene_id, const izb_soft_light *L,
                                const izb_cpu_points *p, uint32_t j0, uint32_t j1, uint32_t *masks, const izb_own *own,
                                const izb_cut *cut, bool shared)
{
    return KERN(soft_row_of)(t, scene_id, L, p, j0, j1, masks, own, cut, shared, true);
}

/* soft_setup for an area light: izb_area_tri_setup in place of izb_soft_tri_setup. Flattened: with
 * three copies in this file GCC would keep izb_area_tri_setup out of line, built for the baseline
 * (its fmaf calls into libm) */
__attribute__((flatten)) int64_t KERN(izb_cpu_area_setup)(const float *xyz, int64_t i0, int64_t i1, const float *light, const izb_soft_light *L,
                                 float zmax, const izb_bbox *pb, const izb_cull_view *cull, izb_soft_tri *out,
                                 uint32_t *tri_id)
{
    int64_t k = 0;
    for (int64_t i = i0; i < i1; i++) {
        float v[3][4];
        for (int c = 0; c < 3; c++)
            izb_transform(light, xyz + 9 * i + 3 * c, v[c]);
        if (izb_area_tri_setup(v, zmax, L, pb, izb_may_cull(cull, (uint32_t)i), &out[k]))
            tri_id[k++] = (uint32_t)i;
    }
    return k;
}
