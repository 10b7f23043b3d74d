/* kernels_faces.h — a point light's cube faces (cpu/faces.c): reconstruction into the face
 * izb_face_owner gives each pixel, and culling's pre-test of which faces a triangle can reach
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

/* recon_rows for a point light's cube: the same mask and samples in pixel order from points[0],
 * each sample's face in face_of[0 ..) (the bbox per face is left to the grouping, faces.c). m: the
 * faces' cam_to_light, IZB_CUBE_FACES of them (a missing face's w row gives -inf: it never takes a
 * point); f0: the faces' camera, kind (IZB_LIGHT_CUBE) and bias. */
static uint32_t KERN(recon_faces_rows)(const izb_recon *fp, const float (*mp)[16], const float *depth, int y0,
                                       int y1, uint8_t *mask, izb_point *points, uint8_t *face_of)
{
    const izb_recon f = *fp; /* local copies: the stores cannot alias them */
    float m[IZB_CUBE_FACES][16];
    memcpy(m, mp, sizeof m);
    const int w = f.width;
    uint32_t c = 0;
    for (int py = y0; py < y1; py++) {
        const float *drow = depth + (size_t)py * (size_t)w;
        uint8_t *mrow = mask + (size_t)py * (size_t)w;
        for (int x0 = 0; x0 < w; x0 += KERN_BLOCK) {
            const int len = w - x0 < KERN_BLOCK ? w - x0 : KERN_BLOCK;
            float tail[KERN_BLOCK], x[KERN_BLOCK], y[KERN_BLOCK], z[KERN_BLOCK];
            uint32_t pixel[KERN_BLOCK];
            int32_t kind[KERN_BLOCK], face[KERN_BLOCK], sample[KERN_BLOCK] __attribute__((aligned(64))),
                unlit[KERN_BLOCK] __attribute__((aligned(64)));
            const float *d = drow + x0;
            if (len < KERN_BLOCK) {
                for (int k = 0; k < KERN_BLOCK; k++)
                    tail[k] = k < len ? d[k] : 0.0f; /* past the row: sky */
                d = tail;
            }
#pragma omp simd
            for (int k = 0; k < KERN_BLOCK; k++) {
                kind[k] = KERN(recon_face_lane)(&f, (const float (*)[16])m, x0 + k, py, d[k], x, y, z, pixel, face,
                                                k);
                sample[k] = -(int32_t)(kind[k] == IZB_SAMPLE);
                unlit[k] = -(int32_t)(kind[k] == IZB_UNLIT);
            }
            const uint32_t dark = KERN_MOVEMASK(unlit);
            uint8_t *mb = mrow + x0;
            if (!dark || dark == 0xffffu)
                memset(mb, dark ? 0 : 255, (size_t)len);
            else
                for (int k = 0; k < len; k++)
                    mb[k] = dark >> k & 1 ? 0 : 255;
            const uint32_t bits = KERN_MOVEMASK(sample);
            izb_point *o = points + c;
            uint8_t *fo = face_of + c;
            if (bits == 0xffffu) {
#pragma omp simd
                for (int k = 0; k < KERN_BLOCK; k++)
                    o[k].x = x[k], o[k].y = y[k], o[k].z = z[k], o[k].pixel = pixel[k], fo[k] = (uint8_t)face[k];
                c += KERN_BLOCK;
            } else if (bits) {
                for (int k = 0; k < len; k++) { /* no branch: a store per lane, kept where it is a sample */
                    points[c] = (izb_point){x[k], y[k], z[k], pixel[k]};
                    face_of[c] = (uint8_t)face[k];
                    c += bits >> k & 1;
                }
            }
        }
    }
    return c;
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
