/* cull.h — stage 3 on the device: triangle transform, culling and compaction (thesis §4.3–4.4).
 *
 * Layout of the compacted triangles: izb_tri is 16 words; triangle i is stored as 4 float4 planes,
 * plane k (words 4k..4k+3) at tris[k * capacity + i] — a structure of float4 arrays. Why: the
 * scatter writes each plane with one coalesced 16-byte store per thread; kernel2 stages plane 3
 * (the cell range, all it needs to decide whether a unit cares) of 256 triangles into shared memory
 * with one coalesced load per thread and fetches the other 3 planes only for triangles it
 * rasterises; kernel1 loads its triangle with four 16-byte loads broadcast to the unit. The
 * thesis' float2 layout (§4.3.2) held raw vertices; ours holds the set-up triangle (edges, depth
 * plane, cell range precomputed), which needs 16 words and fits float4 exactly.
 */
#ifndef IZB_CUDA_CULL_H
#define IZB_CUDA_CULL_H

#include "cuda_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cull_buffers {
    const float *xyz;      /* in: the scene, 9 planes of n floats: plane 3v+a = coordinate a of vertex v */
    uint32_t *flags;       /* scratch: n + 1 */
    uint32_t *offsets;     /* scratch: n + 1 */
    float4 *tris;          /* out: 4 planes of `capacity` float4 (see above) */
    uint32_t capacity;     /* >= n always suffices */
    cuda_frame_info *info; /* in: points, grid, bbox; out: tris, overflows */
    cuda_scratch *temp;    /* CUB temporary storage; grown here if too small */
    uint32_t *tri_id;      /* out, NULL: not written: the survivors' scene indices (izb_cpu_cull_ids) */
} cull_buffers;

/* CUB temporary bytes for n triangles (to reserve up front). */
size_t cull_temp_bytes(int n);

/* Transform n >= 1 triangles by light (column-major world -> light clip), set them up against
 * info->grid / info->bbox (izb_tri_setup; back faces culled where izb_may_cull(cull, i): its comp
 * and boxes are device pointers), and compact the
 * survivors in input order (equal to izb_ref_cull). No points (info->points == 0): all culled,
 * as on the CPU. The survivor count goes to info->tris. */
bool cull_run(const float light[16], int n, const izb_cull_view *cull, const cull_buffers *b, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
