/* kernels_cull_avx512.h — stage 3's AVX-512 pieces, in registers: the bundle's input transpose
 * (KERN_CULL_TRANSPOSE) and the survivors' output (KERN_CULL_EMIT, cull_emit_avx512). Included by
 * cpu/isa.c inside its x86-64-v4 section only. */
/* out[j] = word 3 j + q of the 48 words a, b, c (j < 16): a stride-3 deinterleave in two permutes */
static inline __m512 deinterleave3_avx512(__m512 a, __m512 b, __m512 c, int q)
{
    const __m512i idx = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(3)),
        _mm512_set1_epi32(q));
    const __mmask16 from_c = _mm512_cmpge_epi32_mask(idx, _mm512_set1_epi32(32));
    return _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, idx, b), from_c, idx, c); /* idx mod 16 in c */
}

/* t[c][k] = in[9 * k + c], k < 16: the bundle's 144 words, 9 vectors, in registers. First the 48
 * vertices' x, y and z (stride 3 within each 48 words), then vertex q of each triangle (stride 3
 * again). Word-by-word stores read back as vectors stall on store forwarding (more than the
 * bundle's vector work), and gathers are slower still. */
static inline void cull_transpose_avx512(float (*t)[16], const float *in)
{
    __m512 d[3][3]; /* d[c][g]: coordinate c of vertices 16 g .. 16 g + 15 */
    for (int g = 0; g < 3; g++) {
        const __m512 a = _mm512_loadu_ps(in + 48 * g), b = _mm512_loadu_ps(in + 48 * g + 16),
                     c = _mm512_loadu_ps(in + 48 * g + 32);
        for (int k = 0; k < 3; k++)
            d[k][g] = deinterleave3_avx512(a, b, c, k);
    }
    for (int q = 0; q < 3; q++)
        for (int k = 0; k < 3; k++)
            _mm512_store_ps(t[3 * q + k], deinterleave3_avx512(d[k][0], d[k][1], d[k][2], q));
}
/* kernels.h's cull_emit in registers: an izb_tri is 16 words, lane k's are column k of
 * the 16 rows te[0..15]. Each row is compressed to the survivors' lanes, the 16 x 16
 * words transposed (a survivor per row, an izb_tri in field order), and the first popcount(keep)
 * rows stored: 16 compressions, 64 shuffles and one store per survivor, where the word-by-word
 * copy costs 32 loads and stores per survivor. (Non-temporal stores were no faster in whole
 * frames, bench-cpu spheres:1M, 1 and 2 threads.) */
static void cull_emit_avx512(const float (*te)[16], uint32_t keep, int64_t i,
                             izb_tri *out, uint32_t *tri_id)
{
    if (!keep)
        return; /* a bundle that faces away or misses the points' bbox as a whole */
    const __mmask16 k = (__mmask16)keep;
    const int m = __builtin_popcount(keep);
    __m512i r[16], u[16];
    for (int j = 0; j < 16; j++)
        r[j] = _mm512_maskz_compress_epi32(k, _mm512_load_si512(te[j]));
    /* 16 x 16 transpose: 32-bit, 64-bit, then 128-bit lanes */
    for (int j = 0; j < 16; j += 2) {
        u[j] = _mm512_unpacklo_epi32(r[j], r[j + 1]);
        u[j + 1] = _mm512_unpackhi_epi32(r[j], r[j + 1]);
    }
    for (int j = 0; j < 16; j += 4) {
        r[j] = _mm512_unpacklo_epi64(u[j], u[j + 2]);
        r[j + 1] = _mm512_unpackhi_epi64(u[j], u[j + 2]);
        r[j + 2] = _mm512_unpacklo_epi64(u[j + 1], u[j + 3]);
        r[j + 3] = _mm512_unpackhi_epi64(u[j + 1], u[j + 3]);
    }
    for (int j = 0; j < 4; j++) { /* 128-bit blocks: rows j, 4 + j, 8 + j, 12 + j */
        u[j] = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x88);
        u[4 + j] = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xdd);
        u[8 + j] = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x88);
        u[12 + j] = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xdd);
    }
    for (int j = 0; j < 4; j++) {
        r[j] = _mm512_shuffle_i32x4(u[j], u[8 + j], 0x88);
        r[8 + j] = _mm512_shuffle_i32x4(u[j], u[8 + j], 0xdd);
        r[4 + j] = _mm512_shuffle_i32x4(u[4 + j], u[12 + j], 0x88);
        r[12 + j] = _mm512_shuffle_i32x4(u[4 + j], u[12 + j], 0xdd);
    }
    for (int j = 0; j < 16; j++) /* not masked stores: slower than these branches */
        if (j < m) _mm512_storeu_si512((void *)&out[j], r[j]);
    if (tri_id) {
        const __m512i ids = _mm512_add_epi32(_mm512_set1_epi32((int)i),
                                             _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        _mm512_mask_storeu_epi32(tri_id, (__mmask16)((1u << m) - 1), _mm512_maskz_compress_epi32(k, ids));
    }
}
