/* kernels_faces.h — a point light's cube faces (cpu/faces.c): reconstruction into the face
 * izb_face_owner gives each pixel (each face's samples written where a count per face, or the last
 * frame's, made room), and culling's pre-test of which faces a triangle can reach
 * (izb_face_reach). One copy per instruction set (see kernels.h): baseline x86-64 has no fmaf
 * instruction, and these run a few dozen per pixel or triangle. */
#if !defined(KERN) || !defined(KERN_BLOCK)
#error "kernels_faces.h is included by kernels.h only (cpu/isa.c's per-ISA copies)"
#endif

/* One face's turn in recon_face_lane: when izb_face_take gives it the pixel, its x, y, z rows'
 * coefficients (12 of the matrix's 16) become the ones the point is projected with. Selecting the
 * coefficients instead of computing every face's rows: 3 w-row fmaf per face, 9 for the owner. */
static inline void KERN(face_step)(const float *m, int i, float vx, float vy, float vz, float *sel, float *cw,
                                   int *best)
{
    const bool take = izb_face_take(izb_clip_row(m, 3, vx, vy, vz), i, cw, best);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            sel[4 * c + r] = take ? m[4 * c + r] : sel[4 * c + r];
}

/* A point light's cube (faces.c): the point of one pixel into lane k, in the face izb_face_owner
 * would give it: every face's w row, izb_face_take's choice, then the owner's x, y, z rows (its
 * coefficients selected per lane, no gather), so the point is izb_reconstruct_lit's for that face
 * bit for bit. m: IZB_CUBE_FACES matrices; f0: the faces' shared camera, kind and bias. */
static inline int32_t KERN(recon_face_lane)(const izb_recon *f0, const float (*m)[16], int px, int py,
                                            float depth, float *x, float *y, float *z, uint32_t *pixel,
                                            int32_t *face, int k)
{
    float vx, vy, vz;
    izb_view_point(f0, px, py, depth, &vx, &vy, &vz);
    float sel[16];
    for (int j = 0; j < 16; j++)
        sel[j] = m[0][j];
    float cw = izb_clip_row(m[0], 3, vx, vy, vz);
    int best = 0;
    /* faces 1 .. 5 written out: GCC vectorises no `omp simd` loop with a loop inside */
    KERN(face_step)(m[1], 1, vx, vy, vz, sel, &cw, &best);
    KERN(face_step)(m[2], 2, vx, vy, vz, sel, &cw, &best);
    KERN(face_step)(m[3], 3, vx, vy, vz, sel, &cw, &best);
    KERN(face_step)(m[4], 4, vx, vy, vz, sel, &cw, &best);
    KERN(face_step)(m[5], 5, vx, vy, vz, sel, &cw, &best);
    izb_point p;
    const izb_sample_kind kind =
        izb_clip_point(f0, izb_clip_row(sel, 0, vx, vy, vz), izb_clip_row(sel, 1, vx, vy, vz),
                       izb_clip_row(sel, 2, vx, vy, vz), cw, (uint32_t)(py * f0->width + px), &p);
    x[k] = p.x, y[k] = p.y, z[k] = p.z, pixel[k] = p.pixel, face[k] = best;
    return izb_depth_is_sky(depth) ? IZB_SKY : (int32_t)kind;
}

/* recon_face_lane for a pixel whose face i is known (face_count_rows' block face): face i's four
 * rows m, the same izb_clip_row and izb_clip_point, so the same point bit for bit, without the
 * other faces' w rows and the coefficients' selection. */
static inline int32_t KERN(recon_known_lane)(const izb_recon *f0, const float *m, int px, int py, float depth,
                                             float *x, float *y, float *z, uint32_t *pixel, int k)
{
    float vx, vy, vz;
    izb_view_point(f0, px, py, depth, &vx, &vy, &vz);
    izb_point p;
    const izb_sample_kind kind =
        izb_clip_point(f0, izb_clip_row(m, 0, vx, vy, vz), izb_clip_row(m, 1, vx, vy, vz),
                       izb_clip_row(m, 2, vx, vy, vz), izb_clip_row(m, 3, vx, vy, vz), (uint32_t)(py * f0->width + px),
                       &p);
    x[k] = p.x, y[k] = p.y, z[k] = p.z, pixel[k] = p.pixel;
    return izb_depth_is_sky(depth) ? IZB_SKY : (int32_t)kind;
}

/* The face izb_face_owner gives pixel (px, py) at `depth` (recon_face_lane's choice, the same
 * izb_face_take steps on the same w rows, so the same face), -1 for sky; *vx, *vy, *vz: the
 * view-space point, *cw: the owner's clip w (the izb_clip_row izb_clip_point's divisor is). */
static inline __attribute__((always_inline)) int32_t KERN(face_pick)(const izb_recon *f0, const float (*m)[16], int px,
                                                                     int py, float depth, float *vx, float *vy,
                                                                     float *vz, float *cw)
{
    izb_view_point(f0, px, py, depth, vx, vy, vz);
    float w = izb_clip_row(m[0], 3, *vx, *vy, *vz);
    int best = 0;
    izb_face_take(izb_clip_row(m[1], 3, *vx, *vy, *vz), 1, &w, &best);
    izb_face_take(izb_clip_row(m[2], 3, *vx, *vy, *vz), 2, &w, &best);
    izb_face_take(izb_clip_row(m[3], 3, *vx, *vy, *vz), 3, &w, &best);
    izb_face_take(izb_clip_row(m[4], 3, *vx, *vy, *vz), 4, &w, &best);
    izb_face_take(izb_clip_row(m[5], 3, *vx, *vy, *vz), 5, &w, &best);
    *cw = w;
    return izb_depth_is_sky(depth) ? -1 : best;
}

/* face_pick's face alone */
static inline int32_t KERN(face_only_lane)(const izb_recon *f0, const float (*m)[16], int px, int py, float depth)
{
    float vx, vy, vz, cw;
    return KERN(face_pick)(f0, m, px, py, depth, &vx, &vy, &vz, &cw);
}

/* face_pick keeping the view-space point in v[0..2][k] and the owner's clip w in v[3][k] (so the
 * same bits as izb_clip_point's divisor): recon_faces_rows' lanes when no count pass gave it the
 * blocks' faces. */
static inline int32_t KERN(face_w_lane)(const izb_recon *f0, const float (*m)[16], int px, int py, float depth,
                                        float (*v)[KERN_BLOCK], int k)
{
    float vx, vy, vz, cw;
    const int32_t face = KERN(face_pick)(f0, m, px, py, depth, &vx, &vy, &vz, &cw);
    v[0][k] = vx, v[1][k] = vy, v[2][k] = vz, v[3][k] = cw;
    return face;
}

/* count[i] = how many pixels of rows [y0, y1) that are not sky face i owns: an upper bound of the
 * face's samples there (a pixel behind the light is no sample), so that recon_faces_rows can write
 * each face's samples straight into a place of that size; and per block of KERN_BLOCK pixels, in
 * row order, the one face all its pixels that are not sky belong to, -1 when they are several (a
 * seam): recon_faces_rows projects such a block with that face's matrix alone. Only the w rows:
 * ~1/3 of the work of a point. */
static void KERN(face_count_rows)(const izb_recon *fp, const float (*mp)[16], const float *depth, int y0, int y1,
                                  uint32_t *count, int8_t *block_face)
{
    const izb_recon f = *fp;
    float m[IZB_CUBE_FACES][16];
    memcpy(m, mp, sizeof m);
    const int w = f.width;
    int32_t c[IZB_CUBE_FACES][KERN_BLOCK] __attribute__((aligned(64)));
    memset(c, 0, sizeof c);
    for (int py = y0; py < y1; py++) {
        const float *drow = depth + (size_t)py * (size_t)w;
        for (int x0 = 0; x0 < w; x0 += KERN_BLOCK) {
            const int len = w - x0 < KERN_BLOCK ? w - x0 : KERN_BLOCK;
            float tail[KERN_BLOCK];
            const float *d = drow + x0;
            if (len < KERN_BLOCK) {
                for (int k = 0; k < KERN_BLOCK; k++)
                    tail[k] = k < len ? d[k] : 0.0f; /* past the row: sky */
                d = tail;
            }
            int32_t lo = IZB_CUBE_FACES, hi = -1;
#pragma omp simd reduction(min : lo) reduction(max : hi)
            for (int k = 0; k < KERN_BLOCK; k++) {
                const int32_t face = KERN(face_only_lane)(&f, (const float (*)[16])m, x0 + k, py, d[k]);
                c[0][k] += face == 0, c[1][k] += face == 1, c[2][k] += face == 2;
                c[3][k] += face == 3, c[4][k] += face == 4, c[5][k] += face == 5;
                lo = face >= 0 && face < lo ? face : lo;
                hi = face > hi ? face : hi;
            }
            /* one face for every pixel that is not sky (all sky: any face, 0) */
            *block_face++ = (int8_t)(hi < 0 ? 0 : lo == hi ? hi : -1);
        }
    }
    for (int i = 0; i < IZB_CUBE_FACES; i++) {
        uint32_t sum = 0;
        for (int k = 0; k < KERN_BLOCK; k++)
            sum += (uint32_t)c[i][k];
        count[i] = sum;
    }
}

/* recon_rows for a point light's cube: the same mask, and each face's samples of rows [y0, y1) in
 * pixel order from out[i] (room for cap[i] of them), how many in count[i], their bbox in box[i] (izb_minf / izb_maxf: NaN ignored; an empty face's is (inf, inf, -inf, -inf)). m:
 * the faces' cam_to_light, IZB_CUBE_FACES of them (a missing face's w row gives -inf: it never takes
 * a point); f0: the faces' camera, kind (IZB_LIGHT_CUBE) and bias; block_face: face_count_rows'.
 * A block of one face (most: a face is a large region of the image) is projected with that face's
 * matrix alone and its samples stored as in recon_rows; a block across a seam takes every face's
 * w row per pixel and is stored lane by lane. block_face NULL (no count pass before): each block's
 * pixels find their faces first (face_w_lane, the six w rows), and a block of one face is then
 * projected with its x, y, z rows and the owner's w at hand. False as soon as a face would take
 * more than cap[i] samples (nothing stored past a place; the caller starts the rows again with the
 * count pass's caps, which always fit). */
static bool KERN(recon_faces_rows)(const izb_recon *fp, const float (*mp)[16], const float *depth, int y0, int y1,
                                   const int8_t *block_face, uint8_t *mask, izb_point *const *out,
                                   const uint32_t *cap, uint32_t *count, izb_bbox *box)
{
    const izb_recon f = *fp; /* local copies: the stores cannot alias them */
    float m[IZB_CUBE_FACES][16];
    memcpy(m, mp, sizeof m);
    const int w = f.width;
    uint32_t c[IZB_CUBE_FACES] = {0};
    float lo_x[IZB_CUBE_FACES][KERN_BLOCK] __attribute__((aligned(64))),
        lo_y[IZB_CUBE_FACES][KERN_BLOCK] __attribute__((aligned(64))),
        hi_x[IZB_CUBE_FACES][KERN_BLOCK] __attribute__((aligned(64))),
        hi_y[IZB_CUBE_FACES][KERN_BLOCK] __attribute__((aligned(64)));
    for (int i = 0; i < IZB_CUBE_FACES; i++)
        for (int k = 0; k < KERN_BLOCK; k++)
            lo_x[i][k] = lo_y[i][k] = INFINITY, hi_x[i][k] = hi_y[i][k] = -INFINITY;
    for (int py = y0; py < y1; py++) {
        const float *drow = depth + (size_t)py * (size_t)w;
        uint8_t *mrow = mask + (size_t)py * (size_t)w;
        for (int x0 = 0; x0 < w; x0 += KERN_BLOCK) {
            const int len = w - x0 < KERN_BLOCK ? w - x0 : KERN_BLOCK;
            float tail[KERN_BLOCK], x[KERN_BLOCK] __attribute__((aligned(64))),
                y[KERN_BLOCK] __attribute__((aligned(64))), z[KERN_BLOCK] __attribute__((aligned(64)));
            uint32_t pixel[KERN_BLOCK] __attribute__((aligned(64)));
            int32_t kind[KERN_BLOCK], face[KERN_BLOCK], sample[KERN_BLOCK] __attribute__((aligned(64))),
                unlit[KERN_BLOCK] __attribute__((aligned(64))), other[KERN_BLOCK] __attribute__((aligned(64)));
            const float *d = drow + x0;
            if (len < KERN_BLOCK) {
                for (int k = 0; k < KERN_BLOCK; k++)
                    tail[k] = k < len ? d[k] : 0.0f; /* past the row: sky */
                d = tail;
            }
            int32_t known;
            if (block_face) {
                known = *block_face++;
                if (known >= 0) {
                    const float *mk = m[known];
#pragma omp simd
                    for (int k = 0; k < KERN_BLOCK; k++) {
                        kind[k] = KERN(recon_known_lane)(&f, mk, x0 + k, py, d[k], x, y, z, pixel, k);
                        face[k] = known;
                        sample[k] = -(int32_t)(kind[k] == IZB_SAMPLE);
                        unlit[k] = -(int32_t)(kind[k] == IZB_UNLIT);
                    }
                }
            } else {
                float v[4][KERN_BLOCK] __attribute__((aligned(64)));
                int32_t lo = IZB_CUBE_FACES, hi = -1;
#pragma omp simd reduction(min : lo) reduction(max : hi)
                for (int k = 0; k < KERN_BLOCK; k++) {
                    const int32_t fk = KERN(face_w_lane)(&f, (const float (*)[16])m, x0 + k, py, d[k], v, k);
                    lo = fk >= 0 && fk < lo ? fk : lo;
                    hi = fk > hi ? fk : hi;
                }
                /* face_count_rows' block face: one face for every pixel that is not sky (all sky: 0) */
                known = hi < 0 ? 0 : lo == hi ? hi : -1;
                if (known >= 0) {
                    const float *mk = m[known];
#pragma omp simd
                    for (int k = 0; k < KERN_BLOCK; k++) {
                        const float vx = v[0][k], vy = v[1][k], vz = v[2][k];
                        izb_point p;
                        /* v[3][k]: izb_clip_row(mk, 3, ...) for a pixel that is not sky (the owner's w) */
                        const izb_sample_kind pk =
                            izb_clip_point(&f, izb_clip_row(mk, 0, vx, vy, vz), izb_clip_row(mk, 1, vx, vy, vz),
                                           izb_clip_row(mk, 2, vx, vy, vz), v[3][k], (uint32_t)(py * w + x0 + k), &p);
                        x[k] = p.x, y[k] = p.y, z[k] = p.z, pixel[k] = p.pixel;
                        kind[k] = izb_depth_is_sky(d[k]) ? IZB_SKY : (int32_t)pk;
                        face[k] = known;
                        sample[k] = -(int32_t)(kind[k] == IZB_SAMPLE);
                        unlit[k] = -(int32_t)(kind[k] == IZB_UNLIT);
                    }
                }
            }
            if (known < 0) {
#pragma omp simd
                for (int k = 0; k < KERN_BLOCK; k++) {
                    kind[k] = KERN(recon_face_lane)(&f, (const float (*)[16])m, x0 + k, py, d[k], x, y, z, pixel,
                                                    face, k);
                    sample[k] = -(int32_t)(kind[k] == IZB_SAMPLE);
                    unlit[k] = -(int32_t)(kind[k] == IZB_UNLIT);
                }
            }
            const uint32_t dark = KERN_MOVEMASK(unlit);
            uint8_t *mb = mrow + x0;
            if (!dark || dark == 0xffffu)
                memset(mb, dark ? 0 : 255, (size_t)len);
            else
                for (int k = 0; k < len; k++)
                    mb[k] = dark >> k & 1 ? 0 : 255;
            const uint32_t bits = KERN_MOVEMASK(sample);
            if (!bits) continue;
            const int32_t f1 = face[__builtin_ctz(bits)]; /* the first sample's face */
#pragma omp simd
            for (int k = 0; k < KERN_BLOCK; k++)
                other[k] = -(int32_t)((face[k] != f1) & (kind[k] == IZB_SAMPLE));
            if (!KERN_MOVEMASK(other)) { /* every sample face f1's */
                if (c[f1] + (uint32_t)__builtin_popcount(bits) > cap[f1]) return false;
                izb_point *o = out[f1] + c[f1];
                if (bits == 0xffffu) {
                    KERN(recon_store16)(x, y, z, pixel, o); /* kernels_recon.h's transpose */
                } else { /* the samples only: a store past them would be the next face's place */
                    uint32_t j = 0;
                    for (uint32_t b = bits; b; b &= b - 1, j++) {
                        const int k = __builtin_ctz(b);
                        o[j] = (izb_point){x[k], y[k], z[k], pixel[k]};
                    }
                }
                c[f1] += (uint32_t)__builtin_popcount(bits);
                float *lx = lo_x[f1], *ly = lo_y[f1], *hx = hi_x[f1], *hy = hi_y[f1];
#pragma omp simd
                for (int k = 0; k < KERN_BLOCK; k++) {
                    const bool s = sample[k] != 0;
                    lx[k] = s ? izb_minf(lx[k], x[k]) : lx[k], ly[k] = s ? izb_minf(ly[k], y[k]) : ly[k];
                    hx[k] = s ? izb_maxf(hx[k], x[k]) : hx[k], hy[k] = s ? izb_maxf(hy[k], y[k]) : hy[k];
                }
            } else {
                for (uint32_t b = bits; b; b &= b - 1) { /* across a seam: lane by lane */
                    const int k = __builtin_ctz(b), i = face[k];
                    if (c[i] == cap[i]) return false;
                    out[i][c[i]++] = (izb_point){x[k], y[k], z[k], pixel[k]};
                    lo_x[i][k] = izb_minf(lo_x[i][k], x[k]), lo_y[i][k] = izb_minf(lo_y[i][k], y[k]);
                    hi_x[i][k] = izb_maxf(hi_x[i][k], x[k]), hi_y[i][k] = izb_maxf(hi_y[i][k], y[k]);
                }
            }
        }
    }
    for (int i = 0; i < IZB_CUBE_FACES; i++) {
        izb_bbox bb = {INFINITY, INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < KERN_BLOCK; k++) {
            bb.min_x = izb_minf(bb.min_x, lo_x[i][k]), bb.min_y = izb_minf(bb.min_y, lo_y[i][k]);
            bb.max_x = izb_maxf(bb.max_x, hi_x[i][k]), bb.max_y = izb_maxf(bb.max_y, hi_y[i][k]);
        }
        count[i] = c[i], box[i] = bb;
    }
    return true;
}

/* reach[i] = izb_face_reach(w, triangle i, margin) for i in [i0, i1) (w: IZB_CUBE_FACES rows). The
 * triangles are transposed into lanes first, blocks of KERN_BLOCK (culling's transpose where a
 * copy has one, KERN_CULL_TRANSPOSE: word-by-word stores read back as vectors stall on store
 * forwarding); the stride of 9 floats would need gathers, which GCC does not vectorise here. The
 * last block is padded with zeros (its extra lanes are computed and not stored). */
static void KERN(face_reach)(const float (*wp)[4], const float *xyz, int64_t i0, int64_t i1, float margin,
                             uint8_t *reach)
{
    float w[IZB_CUBE_FACES][4];
    memcpy(w, wp, sizeof w);
    for (int64_t i = i0; i < i1; i += KERN_BLOCK) {
        const int len = i1 - i < KERN_BLOCK ? (int)(i1 - i) : KERN_BLOCK;
        float t[9][KERN_BLOCK] __attribute__((aligned(64)));
        int32_t r[KERN_BLOCK] __attribute__((aligned(64))); /* 32-bit lanes: bytes would make AVX2's vectors 4 wide */
        uint8_t rb[KERN_BLOCK];
#ifdef KERN_CULL_TRANSPOSE
        if (len == KERN_BLOCK)
            KERN_CULL_TRANSPOSE(t, xyz + 9 * i);
        else
#endif
            for (int k = 0; k < KERN_BLOCK; k++)
                for (int j = 0; j < 9; j++)
                    t[j][k] = k < len ? xyz[9 * (i + k) + j] : 0.0f;
#pragma omp simd
        for (int k = 0; k < KERN_BLOCK; k++) {
            r[k] = (int32_t)izb_face_reach9((const float (*)[4])w, t[0][k], t[1][k], t[2][k], t[3][k], t[4][k], t[5][k],
                                            t[6][k], t[7][k], t[8][k], margin);
        }
        for (int k = 0; k < KERN_BLOCK; k++)
            rb[k] = (uint8_t)r[k];
        memcpy(reach + i, rb, (size_t)len);
    }
}
