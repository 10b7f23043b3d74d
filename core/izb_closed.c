/* izb_closed.c — closed, consistently oriented components of a triangle soup (izb_closed.h).
 * Three linear passes with open-addressing hash tables: weld corners by exact position, count
 * every undirected edge's uses per direction while joining the triangles that share it
 * (union-find), then judge each component by its edges and its signed volume. */
#include "izb_closed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one undirected edge: vertex ids lo < hi, uses lo->hi and hi->lo, a triangle that has it */
typedef struct edge_slot {
    uint64_t key; /* (lo << 32 | hi) + 1; 0 = empty */
    uint32_t tri;
    uint16_t fwd, bwd; /* saturating */
} edge_slot;

/* smallest power of two >= 2 * n (load factor <= 1/2) */
static size_t table_size(size_t n);
static uint64_t mix64(uint64_t x);
/* vertex id of each of the 3n corners, welding equal positions; false on OOM */
static bool weld(const float *xyz, size_t n, uint32_t *vid);
static uint32_t find_root(uint32_t *parent, uint32_t i);
static void join(uint32_t *parent, uint32_t a, uint32_t b);

static size_t table_size(size_t n)
{
    size_t s = 16;
    while (s < 2 * n)
        s <<= 1;
    return s;
}

static uint64_t mix64(uint64_t x) /* splitmix64's finaliser */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint32_t float_bits(float f)
{
    f += 0.0f; /* -0 and +0 are the same position */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static bool weld(const float *xyz, size_t n, uint32_t *vid)
{
    const size_t corners = 3 * n, size = table_size(corners), mask = size - 1;
    uint32_t *slot = malloc(size * sizeof *slot); /* corner index + 1 of the vertex's first corner */
    if (!slot) return false;
    memset(slot, 0, size * sizeof *slot);
    uint32_t next = 0;
    for (size_t c = 0; c < corners; c++) {
        const uint32_t k[3] = {float_bits(xyz[3 * c]), float_bits(xyz[3 * c + 1]),
                               float_bits(xyz[3 * c + 2])};
        size_t h = (size_t)mix64(((uint64_t)k[0] << 32 | k[1]) ^ mix64(k[2])) & mask;
        for (;; h = (h + 1) & mask) {
            if (!slot[h]) {
                slot[h] = (uint32_t)c + 1;
                vid[c] = next++;
                break;
            }
            const size_t o = slot[h] - 1;
            if (float_bits(xyz[3 * o]) == k[0] && float_bits(xyz[3 * o + 1]) == k[1] &&
                float_bits(xyz[3 * o + 2]) == k[2]) {
                vid[c] = vid[o];
                break;
            }
        }
    }
    free(slot);
    return true;
}

static uint32_t find_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving */
        i = parent[i];
    }
    return i;
}

static void join(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a != b) parent[a < b ? b : a] = a < b ? a : b; /* the smaller index is the root: deterministic */
}

bool izb_closed_find(const float *xyz, int tri_count, izb_closed *out)
{
    memset(out, 0, sizeof *out);
    if (tri_count <= 0 || !xyz) return true;
    const size_t n = (size_t)tri_count, esize = table_size(3 * n), emask = esize - 1;
    uint32_t *vid = malloc(3 * n * sizeof *vid), *parent = malloc(n * sizeof *parent);
    edge_slot *edges = calloc(esize, sizeof *edges);
    uint8_t *bad = calloc(n, 1);                /* per root: open, non-manifold or inside out */
    double *volume = calloc(n, sizeof *volume); /* per root: 6 x signed volume */
    uint32_t *index = NULL;
    bool ok = vid && parent && edges && bad && volume && weld(xyz, n, vid);
    if (ok) {
        for (size_t t = 0; t < n; t++)
            parent[t] = (uint32_t)t;
        for (size_t t = 0; t < n; t++) {
            for (int e = 0; e < 3; e++) {
                const uint32_t a = vid[3 * t + e], b = vid[3 * t + (e + 1) % 3];
                if (a == b) { /* two corners welded: a degenerate triangle is no closed surface */
                    bad[t] = 1;
                    continue;
                }
                const uint64_t lo = a < b ? a : b, hi = a < b ? b : a, key = (lo << 32 | hi) + 1;
                size_t h = (size_t)mix64(key) & emask;
                while (edges[h].key && edges[h].key != key)
                    h = (h + 1) & emask;
                edge_slot *s = &edges[h];
                if (!s->key) {
                    s->key = key;
                    s->tri = (uint32_t)t;
                } else {
                    join(parent, s->tri, (uint32_t)t);
                }
                uint16_t *use = a < b ? &s->fwd : &s->bwd;
                *use += *use < UINT16_MAX;
            }
        }
        /* a triangle's own badness (degenerate) moves to its root, then every bad edge's */
        for (size_t t = 0; t < n; t++)
            if (bad[t] == 1) {
                bad[t] = 0;
                bad[find_root(parent, (uint32_t)t)] = 2;
            }
        for (size_t h = 0; h < esize; h++)
            if (edges[h].key && (edges[h].fwd != 1 || edges[h].bwd != 1))
                bad[find_root(parent, edges[h].tri)] = 2;
        /* signed volume about the root triangle's first vertex, not the origin: a small mesh far
         * from the origin would otherwise lose its sign to cancellation */
        for (size_t t = 0; t < n; t++) {
            const uint32_t r = find_root(parent, (uint32_t)t);
            double v[9];
            for (int k = 0; k < 9; k++)
                v[k] = (double)xyz[9 * t + k] - (double)xyz[9 * (size_t)r + k % 3];
            volume[r] += v[0] * (v[4] * v[8] - v[5] * v[7]) - v[1] * (v[3] * v[8] - v[5] * v[6]) +
                         v[2] * (v[3] * v[7] - v[4] * v[6]);
        }
        /* number the closed components in order of their roots; index[root] = component */
        index = malloc(n * sizeof *index);
        ok = index != NULL;
    }
    if (ok) {
        int count = 0;
        for (size_t t = 0; t < n; t++)
            index[t] = parent[t] == t && bad[t] == 0 && volume[t] > 0.0 ? (uint32_t)count++ : IZB_OPEN;
        out->comp = malloc(n * sizeof *out->comp);
        out->boxes = malloc((count ? (size_t)count : 1) * 6 * sizeof *out->boxes);
        ok = out->comp && out->boxes;
        if (ok) {
            for (int c = 0; c < count; c++)
                for (int a = 0; a < 3; a++)
                    out->boxes[6 * c + a] = INFINITY, out->boxes[6 * c + 3 + a] = -INFINITY;
            for (size_t t = 0; t < n; t++) {
                const uint32_t c = index[find_root(parent, (uint32_t)t)];
                out->comp[t] = c;
                if (c == IZB_OPEN) continue;
                out->cullable++;
                float *b = out->boxes + 6 * (size_t)c;
                for (int k = 0; k < 9; k++) {
                    b[k % 3] = izb_minf(b[k % 3], xyz[9 * t + k]);
                    b[3 + k % 3] = izb_maxf(b[3 + k % 3], xyz[9 * t + k]);
                }
            }
            out->comp_count = count;
        }
    }
    free(vid), free(parent), free(edges), free(bad), free(volume), free(index);
    if (!ok) {
        izb_closed_free(out);
        fprintf(stderr, "izb: out of memory finding the closed meshes of %d triangles (culling off)\n",
                tri_count);
    }
    return ok;
}

bool izb_closed_find_threads(const float *xyz, int n, int threads, izb_closed *out)
{
    (void)threads; /* single-threaded */
    return izb_closed_find(xyz, n, out);
}

void izb_closed_free(izb_closed *c)
{
    free(c->comp);
    free(c->boxes);
    memset(c, 0, sizeof *c);
}
