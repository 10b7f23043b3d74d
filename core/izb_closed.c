/* izb_closed.c — closed, consistently oriented components of a triangle soup (izb_closed.h).
 *
 * Two hash joins, each radix-partitioned so its table fits in cache, then a concurrent union-find:
 *   1. weld: every corner's exact position (-0 = +0) is hashed; a counting sort by the hash's top
 *      bits scatters the corners, in corner order, into partitions of ~2K; each partition is
 *      grouped with a small open-addressing table. A vertex's id is its first corner's index.
 *   2. edges: every non-degenerate edge use (lo, hi vertex id, direction, triangle) is
 *      partitioned the same way and grouped: the uses per direction are counted, and each use
 *      notes the edge's first triangle; then each thread joins its triangles to those, in triangle
 *      order (neighbours are mostly near in index, so this stays in cache where joining in the
 *      partitions' hash order did not: 75 of 290 ms). The union-find is lock-free: a root is
 *      linked under a smaller root by compare-and-swap, so every component's root is its smallest
 *      triangle, whatever the order of the joins.
 *   3. judge: a component is bad if one of its triangles is degenerate or one of its edges is not
 *      used exactly once each way; its signed volume is summed in triangle order, as one thread
 *      would, from terms computed in parallel; components are numbered in the order of their
 *      smallest triangle and their boxes taken in triangle order.
 * Every step's result depends only on the input, never on the thread count or schedule: the
 * output is bit for bit that of the single-threaded hash-and-union-find analysis it replaced
 * (which tests/core/test_closed.c keeps as its reference).
 *
 * Memory, per triangle: 48 bytes of partitions (reused for the volume terms), 12 of vertex ids
 * (reused for the links), 5 for the union-find and flags, plus each thread's table (4 to 16 bytes
 * per record of the largest partition it grouped; ~32 KB on a typical scene); then 12 for the
 * volumes and numbering beside the output's 4. About 70 bytes per triangle at the peak, where the
 * single-threaded analysis before it needed 145 to 265 (its tables over all corners and edges). */
#include "izb_closed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "izb_parallel.h"

/* Records per partition the partition count aims at: a table of 2-4x as many 4-byte slots stays
 * in L1/L2. */
#define CLOSED_PART_RECORDS_LOG2 11
/* At most 2^12 partitions: the scatter's write streams stay within the TLB's reach. */
#define CLOSED_PART_MAX_LOG2 12
#define CLOSED_MAX_THREADS 256
/* At least 2^16 triangles per thread (but for izb_closed_find_exact_threads): below that the
 * barriers' waits (a descheduled thread on a busy machine costs milliseconds each) outweigh the
 * work. 20K triangles: 2-6 ms on one thread, 28-104 ms on two with the machine's load at 8-9
 * (bench-cpu --load); 124K: 27-36 ms on one, 86-127 ms on two. */
#define CLOSED_MIN_TRIS_PER_THREAD_LOG2 16
#define LINK_NONE UINT32_MAX

/* one record of a partition: a corner (weld) or an edge use (edges) */
typedef struct rec {
    uint32_t a, b, c; /* weld: the position's bits x, y, z;
                       * edges: vertex ids lo, hi, (3 triangle + edge) << 1 | lo->hi */
    uint32_t d;       /* weld: the corner; edges, an edge's first record: uses lo->hi | hi->lo << 16 */
} rec;

/* the partitioning shared by both joins: counts then cursors, threads x parts */
typedef struct parts {
    int log2;       /* partitions: 1 << log2 */
    size_t *cursor; /* [thread][part]: counts, then where the thread's next record of part goes */
    size_t *start;  /* part + 1 entries: where each partition begins in the records */
} parts;

/* a thread's grouping table, grown to the largest partition it meets */
typedef struct table {
    uint32_t *slot; /* record index + 1 within the partition; 0 = empty */
    size_t size;    /* slots in use for this partition: a power of two <= cap */
    size_t cap;
} table;

static uint64_t mix64(uint64_t x);
/* the position's bits, -0 and +0 made one (the weld's rule: exact position) */
static uint32_t float_bits(float f);
static uint64_t corner_hash(uint32_t x, uint32_t y, uint32_t z);
static uint32_t part_of(uint64_t h, int log2);
/* a table of at least 2 * records slots, cleared; false on OOM */
static bool table_reserve(table *t, size_t records);
/* the partitions' starts and every thread's cursors from the counts, partition-major and thread
 * order within a partition, so the scatter keeps each partition in input order */
static void parts_scan(parts *p, int threads);
static void weld_group(const rec *r, size_t n, table *t, uint32_t *vid);
static void edge_group(rec *r, size_t n, table *t, uint32_t *link, uint8_t *flag);
static uint32_t find_root(uint32_t *parent, uint32_t i);
static void join(uint32_t *parent, uint32_t a, uint32_t b);
/* the three entry points; capped: at most one thread per 2^CLOSED_MIN_TRIS_PER_THREAD_LOG2 */
static bool closed_find(const float *xyz, int tri_count, int threads, bool capped, izb_closed *out);

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

static uint64_t corner_hash(uint32_t x, uint32_t y, uint32_t z)
{
    return mix64(((uint64_t)x << 32 | y) ^ mix64(z));
}

static uint32_t part_of(uint64_t h, int log2)
{
    return log2 ? (uint32_t)(h >> (64 - log2)) : 0u;
}

static bool table_reserve(table *t, size_t records)
{
    size_t size = 16;
    while (size < 2 * records)
        size <<= 1;
    if (size > t->cap) {
        free(t->slot);
        t->slot = malloc(size * sizeof *t->slot);
        t->cap = t->slot ? size : 0;
        if (!t->slot) return false;
    }
    t->size = size;
    memset(t->slot, 0, size * sizeof *t->slot);
    return true;
}

static void parts_scan(parts *p, int threads)
{
    const size_t np = (size_t)1 << p->log2;
    size_t run = 0;
    for (size_t q = 0; q < np; q++) {
        p->start[q] = run;
        for (int t = 0; t < threads; t++) {
            const size_t count = p->cursor[(size_t)t * np + q];
            p->cursor[(size_t)t * np + q] = run;
            run += count;
        }
    }
    p->start[np] = run;
}

/* One partition of corners, in corner order: the first corner at a position names the vertex. */
static void weld_group(const rec *r, size_t n, table *t, uint32_t *vid)
{
    const size_t mask = t->size - 1;
    uint32_t *slot = t->slot;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)corner_hash(r[i].a, r[i].b, r[i].c) & mask;
        for (;; h = (h + 1) & mask) {
            if (!slot[h]) {
                slot[h] = (uint32_t)i + 1;
                vid[r[i].d] = r[i].d;
                break;
            }
            const rec *o = r + slot[h] - 1;
            if (o->a == r[i].a && o->b == r[i].b && o->c == r[i].c) {
                vid[r[i].d] = o->d;
                break;
            }
        }
    }
}

/* One partition of edge uses, in triangle order: uses counted per direction in the edge's first
 * record (saturating at 2: only "exactly one" matters), every use linked to the edge's first
 * triangle (link[3 triangle + edge]; LINK_NONE for the first use), and the first triangle of every
 * edge not used exactly once each way flagged. */
static void edge_group(rec *r, size_t n, table *t, uint32_t *link, uint8_t *flag)
{
    const size_t mask = t->size - 1;
    uint32_t *slot = t->slot;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)mix64((uint64_t)r[i].a << 32 | r[i].b) & mask;
        const int shift = r[i].c & 1 ? 0 : 16;
        for (;; h = (h + 1) & mask) {
            if (!slot[h]) {
                slot[h] = (uint32_t)i + 1;
                r[i].d = 1u << shift;
                link[r[i].c >> 1] = LINK_NONE;
                break;
            }
            rec *o = r + slot[h] - 1;
            if (o->a == r[i].a && o->b == r[i].b) {
                if (((o->d >> shift) & 0xffffu) < 2) o->d += 1u << shift;
                link[r[i].c >> 1] = (o->c >> 1) / 3;
                break;
            }
        }
    }
    for (size_t h = 0; h <= mask; h++)
        if (slot[h]) {
            const rec *o = r + slot[h] - 1;
            if (o->d != (1u | 1u << 16)) __atomic_store_n(&flag[(o->c >> 1) / 3], 1, __ATOMIC_RELAXED);
        }
}

/* Union-find on one array shared by every thread: parent[i] <= i always, a root only changes by
 * compare-and-swap while it is a root, and halving only shortcuts to an ancestor (ancestry is
 * never undone), so relaxed atomics suffice and the final roots are the components' minima. */
static uint32_t find_root(uint32_t *parent, uint32_t i)
{
    for (;;) {
        const uint32_t p = __atomic_load_n(&parent[i], __ATOMIC_RELAXED);
        if (p == i) return i;
        const uint32_t g = __atomic_load_n(&parent[p], __ATOMIC_RELAXED);
        if (g != p) __atomic_store_n(&parent[i], g, __ATOMIC_RELAXED); /* path halving */
        i = g;
    }
}

static void join(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_root(parent, a);
        b = find_root(parent, b);
        if (a == b) return;
        if (a < b) {
            const uint32_t s = a;
            a = b, b = s;
        }
        uint32_t expect = a; /* a still a root: link it under the smaller root b */
        if (__atomic_compare_exchange_n(&parent[a], &expect, b, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}

bool izb_closed_find(const float *xyz, int tri_count, izb_closed *out)
{
    return closed_find(xyz, tri_count, 0, true, out);
}

bool izb_closed_find_threads(const float *xyz, int tri_count, int threads, izb_closed *out)
{
    return closed_find(xyz, tri_count, threads, true, out);
}

bool izb_closed_find_exact_threads(const float *xyz, int tri_count, int threads, izb_closed *out)
{
    return closed_find(xyz, tri_count, threads, false, out);
}

static bool closed_find(const float *xyz, int tri_count, int threads, bool capped, izb_closed *out)
{
    memset(out, 0, sizeof *out);
    if (tri_count <= 0 || !xyz) return true;
    const size_t n = (size_t)tri_count, corners = 3 * n;
    if (corners >= UINT32_MAX / 2) { /* corner ids and triangle << 1 are 32 bits */
        fprintf(stderr, "izb: %d triangles are too many for the closed-mesh analysis (culling off)\n",
                tri_count);
        return false;
    }
    threads = izb_threads_resolve(threads);
    threads = threads > CLOSED_MAX_THREADS ? CLOSED_MAX_THREADS : threads;
    if (capped && (size_t)threads > (n >> CLOSED_MIN_TRIS_PER_THREAD_LOG2))
        threads = n >> CLOSED_MIN_TRIS_PER_THREAD_LOG2 > 1 ? (int)(n >> CLOSED_MIN_TRIS_PER_THREAD_LOG2) : 1;

    parts p = {0};
    while (p.log2 < CLOSED_PART_MAX_LOG2 && (corners >> (CLOSED_PART_RECORDS_LOG2 + p.log2)) > 0)
        p.log2++;
    const size_t np = (size_t)1 << p.log2;
    rec *r = malloc(corners * sizeof *r);
    uint32_t *vid = malloc(corners * sizeof *vid), *parent = malloc(n * sizeof *parent);
    uint8_t *flag = calloc(n, 1); /* per triangle: degenerate or on a bad edge; then per root: bad */
    p.cursor = malloc((size_t)threads * np * sizeof *p.cursor);
    p.start = malloc((np + 1) * sizeof *p.start);
    double *volume = NULL;
    uint32_t *index = NULL;
    bool ok = r && vid && parent && flag && p.cursor && p.start;
    int oom = 0;

    if (ok) {
#pragma omp parallel num_threads(threads)
        {
            const int me = THREAD_NUM(), nt = NUM_THREADS();
            const size_t t0 = n * (size_t)me / (size_t)nt, t1 = n * (size_t)(me + 1) / (size_t)nt;
            size_t *cur = p.cursor + (size_t)me * np;
            table tab = {0};

            /* 1. weld: count, scan, scatter the corners, group each partition */
            memset(cur, 0, np * sizeof *cur);
            for (size_t c = 3 * t0; c < 3 * t1; c++)
                cur[part_of(corner_hash(float_bits(xyz[3 * c]), float_bits(xyz[3 * c + 1]),
                                        float_bits(xyz[3 * c + 2])),
                            p.log2)]++;
            for (size_t t = t0; t < t1; t++)
                parent[t] = (uint32_t)t;
#pragma omp barrier
#pragma omp single
            parts_scan(&p, nt);
            for (size_t c = 3 * t0; c < 3 * t1; c++) {
                const uint32_t x = float_bits(xyz[3 * c]), y = float_bits(xyz[3 * c + 1]),
                               z = float_bits(xyz[3 * c + 2]);
                r[cur[part_of(corner_hash(x, y, z), p.log2)]++] = (rec){x, y, z, (uint32_t)c};
            }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
            for (size_t q = 0; q < np; q++) {
                const size_t len = p.start[q + 1] - p.start[q];
                if (!len || __atomic_load_n(&oom, __ATOMIC_RELAXED)) continue;
                if (!table_reserve(&tab, len)) {
                    __atomic_store_n(&oom, 1, __ATOMIC_RELAXED);
                    continue;
                }
                weld_group(r + p.start[q], len, &tab, vid);
            }
            /* (the for's implied barrier: every vertex id written, unless a table was out of
             * memory; then every thread skips the rest alike: no partitions, no joins) */
            const bool welded = !__atomic_load_n(&oom, __ATOMIC_RELAXED);

            /* 2. edges: count, scan, scatter the uses, group each partition */
            memset(cur, 0, np * sizeof *cur);
            for (size_t t = welded ? t0 : t1; t < t1; t++)
                for (int e = 0; e < 3; e++) {
                    const uint32_t a = vid[3 * t + e], b = vid[3 * t + (e + 1) % 3];
                    if (a == b) { /* two corners welded: a degenerate triangle is no closed surface */
                        flag[t] = 1;
                        continue;
                    }
                    const uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
                    cur[part_of(mix64(key), p.log2)]++;
                }
#pragma omp barrier
#pragma omp single
            parts_scan(&p, nt);
            uint32_t *link = vid; /* from here on: each edge use's link (edge_group) */
            for (size_t t = welded ? t0 : t1; t < t1; t++) {
                const uint32_t v[3] = {vid[3 * t], vid[3 * t + 1], vid[3 * t + 2]};
                for (int e = 0; e < 3; e++) {
                    const uint32_t a = v[e], b = v[(e + 1) % 3];
                    if (a == b) {
                        link[3 * t + e] = LINK_NONE;
                        continue;
                    }
                    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
                    r[cur[part_of(mix64((uint64_t)lo << 32 | hi), p.log2)]++] =
                        (rec){lo, hi, (uint32_t)(3 * t + (size_t)e) << 1 | (a < b), 0};
                }
            }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
            for (size_t q = 0; q < np; q++) {
                const size_t len = p.start[q + 1] - p.start[q];
                if (!len || __atomic_load_n(&oom, __ATOMIC_RELAXED)) continue;
                if (!table_reserve(&tab, len)) {
                    __atomic_store_n(&oom, 1, __ATOMIC_RELAXED);
                    continue;
                }
                edge_group(r + p.start[q], len, &tab, link, flag);
            }
            free(tab.slot);
            /* (the for's implied barrier: every link written, unless out of memory) triangles
             * joined in triangle order, mostly to near neighbours, so the union-find stays in cache */
            const bool linked = !__atomic_load_n(&oom, __ATOMIC_RELAXED);
            for (size_t t = linked ? t0 : t1; t < t1; t++)
                for (int e = 0; e < 3; e++)
                    if (link[3 * t + e] != LINK_NONE) join(parent, link[3 * t + e], (uint32_t)t);
#pragma omp barrier

            /* 3. every triangle points at its root; a flagged triangle makes its root bad (flags
             * only go 0 -> 1, so the root's own flag may be read before or after) */
            for (size_t t = t0; t < t1; t++)
                __atomic_store_n(&parent[t], find_root(parent, (uint32_t)t), __ATOMIC_RELAXED);
#pragma omp barrier
            for (size_t t = t0; t < t1; t++)
                if (__atomic_load_n(&flag[t], __ATOMIC_RELAXED))
                    __atomic_store_n(&flag[parent[t]], 1, __ATOMIC_RELAXED);
            /* signed volume terms, about the root triangle's first vertex, not the origin: a small
             * mesh far from the origin would otherwise lose its sign to cancellation */
            double *term = (double *)r;
            for (size_t t = t0; t < t1; t++) {
                const size_t root = parent[t];
                double v[9];
                for (int k = 0; k < 9; k++)
                    v[k] = (double)xyz[9 * t + k] - (double)xyz[9 * root + k % 3];
                term[t] = v[0] * (v[4] * v[8] - v[5] * v[7]) - v[1] * (v[3] * v[8] - v[5] * v[6]) +
                          v[2] * (v[3] * v[7] - v[4] * v[6]);
            }
        }
        ok = !oom;
    }
    free(vid); /* the links: all joined */
    vid = NULL;
    if (ok) {
        volume = calloc(n, sizeof *volume); /* per root: 6 x signed volume, summed in triangle order */
        index = malloc(n * sizeof *index);
        ok = volume && index;
    }
    if (ok) {
        const double *term = (const double *)r;
        for (size_t t = 0; t < n; t++)
            volume[parent[t]] += term[t];
        /* number the closed components in order of their roots; index[root] = component */
        int count = 0;
        for (size_t t = 0; t < n; t++)
            index[t] = parent[t] == t && flag[t] == 0 && volume[t] > 0.0 ? (uint32_t)count++ : IZB_OPEN;
        out->comp = malloc(n * sizeof *out->comp);
        out->boxes = malloc((count ? (size_t)count : 1) * 6 * sizeof *out->boxes);
        ok = out->comp && out->boxes;
        if (ok) {
            for (int c = 0; c < count; c++)
                for (int a = 0; a < 3; a++)
                    out->boxes[6 * c + a] = INFINITY, out->boxes[6 * c + 3 + a] = -INFINITY;
            for (size_t t = 0; t < n; t++) {
                const uint32_t c = index[parent[t]];
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
    free(r), free(vid), free(parent), free(flag), free(p.cursor), free(p.start), free(volume), free(index);
    if (!ok) {
        izb_closed_free(out);
        fprintf(stderr, "izb: out of memory finding the closed meshes of %d triangles (culling off)\n",
                tri_count);
    }
    return ok;
}

void izb_closed_free(izb_closed *c)
{
    free(c->comp);
    free(c->boxes);
    memset(c, 0, sizeof *c);
}
