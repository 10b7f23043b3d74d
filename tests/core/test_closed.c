/* test_closed.c — which triangles culling auto may drop (core/izb_closed.h, izb_may_cull): closed,
 * consistently outward-oriented components only, and only while a spot light is outside them.
 * Hand-made cubes with one defect each, then the built-in scenes (every object closed but the
 * ground). Then the partitioned, multi-threaded izb_closed_find against the reference it
 * replaced (the single-threaded hash-table analysis, kept below verbatim): the same components,
 * numbering and boxes, bit for bit, on 1, 2, 3 and 8 threads, for random soups of closed, open,
 * inside-out, nested, non-manifold, duplicated, degenerate, NaN/Inf and signed-zero meshes in
 * shuffled order, and for every built-in scene. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "izb_closed.h"
#include "scene.h"
#include "test.h"
#include "test_cube.h"
#include "test_rng.h"

#define MAX_TRIS 64

/* ---- the reference: izb_closed.c before it was partitioned and made parallel (one hash table
 * over all corners, one over all edges, a sequential union-find), unchanged but for names ---- */
#include <stdio.h>

typedef struct ref_edge_slot {
    uint64_t key; /* (lo << 32 | hi) + 1; 0 = empty */
    uint32_t tri;
    uint16_t fwd, bwd; /* saturating */
} ref_edge_slot;

/* smallest power of two >= 2 * n (load factor <= 1/2) */
static size_t ref_table_size(size_t n);
static uint64_t ref_mix64(uint64_t x);
/* vertex id of each of the 3n corners, welding equal positions; false on OOM */
static bool ref_weld(const float *xyz, size_t n, uint32_t *vid);
static uint32_t ref_find_root(uint32_t *parent, uint32_t i);
static void ref_join(uint32_t *parent, uint32_t a, uint32_t b);

static size_t ref_table_size(size_t n)
{
    size_t s = 16;
    while (s < 2 * n)
        s <<= 1;
    return s;
}

static uint64_t ref_mix64(uint64_t x) /* splitmix64's finaliser */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint32_t ref_float_bits(float f)
{
    f += 0.0f; /* -0 and +0 are the same position */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static bool ref_weld(const float *xyz, size_t n, uint32_t *vid)
{
    const size_t corners = 3 * n, size = ref_table_size(corners), mask = size - 1;
    uint32_t *slot = malloc(size * sizeof *slot); /* corner index + 1 of the vertex's first corner */
    if (!slot) return false;
    memset(slot, 0, size * sizeof *slot);
    uint32_t next = 0;
    for (size_t c = 0; c < corners; c++) {
        const uint32_t k[3] = {ref_float_bits(xyz[3 * c]), ref_float_bits(xyz[3 * c + 1]),
                               ref_float_bits(xyz[3 * c + 2])};
        size_t h = (size_t)ref_mix64(((uint64_t)k[0] << 32 | k[1]) ^ ref_mix64(k[2])) & mask;
        for (;; h = (h + 1) & mask) {
            if (!slot[h]) {
                slot[h] = (uint32_t)c + 1;
                vid[c] = next++;
                break;
            }
            const size_t o = slot[h] - 1;
            if (ref_float_bits(xyz[3 * o]) == k[0] && ref_float_bits(xyz[3 * o + 1]) == k[1] &&
                ref_float_bits(xyz[3 * o + 2]) == k[2]) {
                vid[c] = vid[o];
                break;
            }
        }
    }
    free(slot);
    return true;
}

static uint32_t ref_find_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving */
        i = parent[i];
    }
    return i;
}

static void ref_join(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = ref_find_root(parent, a);
    b = ref_find_root(parent, b);
    if (a != b) parent[a < b ? b : a] = a < b ? a : b; /* the smaller index is the root: deterministic */
}

static bool ref_closed_find(const float *xyz, int tri_count, izb_closed *out)
{
    memset(out, 0, sizeof *out);
    if (tri_count <= 0 || !xyz) return true;
    const size_t n = (size_t)tri_count, esize = ref_table_size(3 * n), emask = esize - 1;
    uint32_t *vid = malloc(3 * n * sizeof *vid), *parent = malloc(n * sizeof *parent);
    ref_edge_slot *edges = calloc(esize, sizeof *edges);
    uint8_t *bad = calloc(n, 1);                /* per root: open, non-manifold or inside out */
    double *volume = calloc(n, sizeof *volume); /* per root: 6 x signed volume */
    uint32_t *index = NULL;
    bool ok = vid && parent && edges && bad && volume && ref_weld(xyz, n, vid);
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
                size_t h = (size_t)ref_mix64(key) & emask;
                while (edges[h].key && edges[h].key != key)
                    h = (h + 1) & emask;
                ref_edge_slot *s = &edges[h];
                if (!s->key) {
                    s->key = key;
                    s->tri = (uint32_t)t;
                } else {
                    ref_join(parent, s->tri, (uint32_t)t);
                }
                uint16_t *use = a < b ? &s->fwd : &s->bwd;
                *use += *use < UINT16_MAX;
            }
        }
        /* a triangle's own badness (degenerate) moves to its root, then every bad edge's */
        for (size_t t = 0; t < n; t++)
            if (bad[t] == 1) {
                bad[t] = 0;
                bad[ref_find_root(parent, (uint32_t)t)] = 2;
            }
        for (size_t h = 0; h < esize; h++)
            if (edges[h].key && (edges[h].fwd != 1 || edges[h].bwd != 1))
                bad[ref_find_root(parent, edges[h].tri)] = 2;
        /* signed volume about the root triangle's first vertex, not the origin: a small mesh far
         * from the origin would otherwise lose its sign to cancellation */
        for (size_t t = 0; t < n; t++) {
            const uint32_t r = ref_find_root(parent, (uint32_t)t);
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
                const uint32_t c = index[ref_find_root(parent, (uint32_t)t)];
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
        fprintf(stderr,
                "ref_closed_find: out of memory finding the closed meshes of %d triangles (culling off)\n",
                tri_count);
    }
    return ok;
}

/* ---- the differential test ---- */

/* a growing triangle soup */
typedef struct soup {
    float *xyz;
    int n, cap;
} soup;

static void soup_tri(soup *s, const float a[3], const float b[3], const float c[3]);
/* a closed cube [c - h, c + h]^3, each face a k x k grid of quads, outward (or inside out when
 * flip); grid coordinates are computed alike on every face, so the seams weld exactly */
static void soup_cube(soup *s, const float c[3], float h, int k, bool flip);
/* ref against izb_closed_find_exact_threads on 1, 2, 3, 8 threads and izb_closed_find: equal in
 * everything */
static void check_same(const float *xyz, int n, const char *what, int *closed_seen, int *open_seen);
/* one random scene: cubes with defects, nested and touching cubes, chaos soups, bad vertices */
static void random_scene(soup *s, int objects);

static void soup_tri(soup *s, const float a[3], const float b[3], const float c[3])
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->xyz = realloc(s->xyz, 9 * (size_t)s->cap * sizeof(float));
        if (!s->xyz) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    float *t = s->xyz + 9 * (size_t)s->n++;
    memcpy(t, a, 3 * sizeof(float)), memcpy(t + 3, b, 3 * sizeof(float)), memcpy(t + 6, c, 3 * sizeof(float));
}

static void soup_cube(soup *s, const float c[3], float h, int k, bool flip)
{
    for (int axis = 0; axis < 3; axis++)
        for (int side = -1; side <= 1; side += 2) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            const bool reverse = (side < 0) != flip;
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++) {
                    float q[4][3];
                    const int gi[4] = {i, i + 1, i + 1, i}, gj[4] = {j, j, j + 1, j + 1};
                    for (int m = 0; m < 4; m++) {
                        q[m][axis] = c[axis] + (float)side * h;
                        q[m][u] = c[u] + h * (-1.0f + 2.0f * (float)gi[m] / (float)k);
                        q[m][v] = c[v] + h * (-1.0f + 2.0f * (float)gj[m] / (float)k);
                    }
                    if (reverse) {
                        soup_tri(s, q[2], q[1], q[0]);
                        soup_tri(s, q[3], q[2], q[0]);
                    } else {
                        soup_tri(s, q[0], q[1], q[2]);
                        soup_tri(s, q[0], q[2], q[3]);
                    }
                }
        }
}

static void check_same(const float *xyz, int n, const char *what, int *closed_seen, int *open_seen)
{
    izb_closed r;
    CHECK(ref_closed_find(xyz, n, &r), "%s: reference", what);
    if (closed_seen) *closed_seen += r.comp_count;
    if (open_seen)
        for (int i = 0; i < n; i++)
            if (r.comp[i] == IZB_OPEN) {
                (*open_seen)++;
                break;
            }
    static const int threads[] = {1, 2, 3, 8, 0}; /* 0: izb_closed_find, as izb_set_scene runs it */
    for (int k = 0; k < 5; k++) {
        izb_closed c;
        if (!(threads[k] ? izb_closed_find_exact_threads(xyz, n, threads[k], &c)
                         : izb_closed_find(xyz, n, &c))) {
            CHECK(false, "%s: izb_closed_find_exact_threads(%d) failed", what, threads[k]);
            continue;
        }
        int first = -1;
        for (int i = 0; i < n && first < 0; i++)
            if (c.comp[i] != r.comp[i]) first = i;
        CHECK(c.comp_count == r.comp_count && c.cullable == r.cullable && first < 0 &&
                  (!r.comp_count || !memcmp(c.boxes, r.boxes, 6 * (size_t)r.comp_count * sizeof(float))),
              "%s, %d threads: %d components %d cullable, reference %d %d; first differing triangle %d "
              "(%u vs %u)",
              what, threads[k], c.comp_count, c.cullable, r.comp_count, r.cullable, first,
              first < 0 ? 0 : c.comp[first], first < 0 ? 0 : r.comp[first]);
        izb_closed_free(&c);
    }
    izb_closed_free(&r);
}

static int rnd_int(int n)
{
    return (int)(rnd() * n);
}

/* Out of memory: in a child whose address space is capped just above what it holds, the analysis
 * of 1M triangles (48 MB of partitions alone) must fail cleanly: false, *out empty. The child's
 * exit status: 0 as it should, 1 not, 77 when the cap cannot be set. One thread: no thread stacks
 * to map under the cap. */
static int oom_child(void)
{
    const int n = 1000000;
    float *xyz = malloc(9 * (size_t)n * sizeof(float));
    if (!xyz) return 77;
    for (size_t i = 0; i < 9 * (size_t)n; i++)
        xyz[i] = (float)(i % 1000);
    long pages = 0;
    FILE *fp = fopen("/proc/self/statm", "r");
    if (!fp || fscanf(fp, "%ld", &pages) != 1) return 77;
    fclose(fp);
    const rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (16u << 20);
    if (setrlimit(RLIMIT_AS, &(struct rlimit){cap, cap}) != 0) return 77;
    izb_closed c;
    const bool ok = izb_closed_find_threads(xyz, n, 1, &c);
    return !ok && c.comp == NULL && c.boxes == NULL && c.comp_count == 0 && c.cullable == 0 ? 0 : 1;
}

static void random_scene(soup *s, int objects)
{
    s->n = 0;
    for (int o = 0; o < objects; o++) {
        /* integer centres and sizes, power-of-two grids: every coordinate exact, so touching cubes
         * share their vertices bit for bit */
        const float c[3] = {(float)(rnd_int(40) - 20), (float)(rnd_int(40) - 20), (float)(rnd_int(40) - 20)};
        const float h = (float)(1 + rnd_int(3));
        const int k = 1 << rnd_int(3), first = s->n;
        const int kind = rnd_int(14);
        soup_cube(s, c, h, k, kind == 1);
        float *t = s->xyz + 9 * (size_t)(first + rnd_int(s->n - first));
        float tmp[3];
        switch (kind) {
        case 2: /* a hole: the last triangle dropped */
            s->n--;
            break;
        case 3: /* one triangle flipped */
            memcpy(tmp, t + 3, sizeof tmp), memcpy(t + 3, t + 6, sizeof tmp), memcpy(t + 6, tmp, sizeof tmp);
            break;
        case 4: /* a duplicated triangle: its edges used twice one way */
            soup_tri(s, t, t + 3, t + 6);
            break;
        case 5: { /* a fin: an edge used three times */
            const float apex[3] = {t[0] + 7.5f, t[1] - 3.25f, t[2] + 1.5f};
            soup_tri(s, t, t + 3, apex);
            break;
        }
        case 6: { /* a touching cube sharing one edge: that edge used twice each way (non-manifold) */
            const float c2[3] = {c[0] + 2 * h, c[1] + 2 * h, c[2]};
            soup_cube(s, c2, h, k, false);
            break;
        }
        case 7: { /* a degenerate triangle on the mesh: two corners at one position */
            soup_tri(s, t, t + 3, t + 3);
            break;
        }
        case 8: { /* a zero-area triangle with three distinct corners: not degenerate by the weld rule */
            const float mid[3] = {0.5f * (t[0] + t[3]), 0.5f * (t[1] + t[4]), 0.5f * (t[2] + t[5])};
            soup_tri(s, t, mid, t + 3);
            break;
        }
        case 9: /* a NaN or an Inf vertex: every corner at that position moved, so it still welds */
        case 10: {
            const float from[3] = {t[0], t[1], t[2]};
            const float to = kind == 9 ? NAN : (rnd() < 0.5 ? INFINITY : -INFINITY);
            const int axis = rnd_int(3);
            for (int i = 3 * first; i < 3 * s->n; i++) {
                float *p = s->xyz + 3 * (size_t)i;
                if (p[0] == from[0] && p[1] == from[1] && p[2] == from[2]) p[axis] = to;
            }
            break;
        }
        case 11: { /* nested: a smaller cube inside, outward or inside out (a hollow shell) */
            soup_cube(s, c, 0.5f * h, k, rnd() < 0.5);
            break;
        }
        case 12: /* signed zeros: a cube about the origin's planes, every zero coordinate given a random
                  * sign (the weld takes -0 and +0 as one position) */
            s->n = first;
            soup_cube(s, (float[3]){0.0f, c[1], 0.0f}, h, 2 * k, false);
            for (int i = 9 * first; i < 9 * s->n; i++)
                if (s->xyz[i] == 0.0f && rnd() < 0.5) s->xyz[i] = -0.0f;
            break;
        case 13: { /* chaos: triangles between a few points, edges used any number of times */
            s->n = first;
            float pts[6][3];
            for (int m = 0; m < 6; m++)
                for (int a = 0; a < 3; a++)
                    pts[m][a] = c[a] + (float)rnd_int(3);
            const int count = 1 + rnd_int(12);
            for (int m = 0; m < count; m++)
                soup_tri(s, pts[rnd_int(6)], pts[rnd_int(6)], pts[rnd_int(6)]);
            break;
        }
        default: /* 0, 1: closed, outward or inside out */
            break;
        }
    }
    /* shuffled triangle order, each triangle's corners rotated (its orientation kept) */
    for (int i = s->n - 1; i > 0; i--) {
        const int j = rnd_int(i + 1);
        float tmp[9];
        memcpy(tmp, s->xyz + 9 * (size_t)i, sizeof tmp);
        memcpy(s->xyz + 9 * (size_t)i, s->xyz + 9 * (size_t)j, sizeof tmp);
        memcpy(s->xyz + 9 * (size_t)j, tmp, sizeof tmp);
    }
    for (int i = 0; i < s->n; i++) {
        float *t = s->xyz + 9 * (size_t)i, tmp[9];
        const int r = rnd_int(3);
        for (int m = 0; m < 9; m++)
            tmp[m] = t[(3 * r + m) % 9];
        memcpy(t, tmp, sizeof tmp);
    }
}

/* the triangles' closed components, checked for consistency with out->comp */
static izb_closed find(const float *xyz, int n);

static izb_closed find(const float *xyz, int n)
{
    izb_closed c;
    CHECK(izb_closed_find(xyz, n, &c), "izb_closed_find");
    int count = 0;
    for (int i = 0; i < n; i++) {
        count += c.comp[i] != IZB_OPEN;
        CHECK(c.comp[i] == IZB_OPEN || c.comp[i] < (uint32_t)c.comp_count, "component index %u", c.comp[i]);
    }
    CHECK(count == c.cullable, "cullable %d = triangles with a component %d", c.cullable, count);
    return c;
}

int main(void)
{
    /* out of memory: false, nothing to free (first, while the heap holds little to reuse) */
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) _exit(oom_child());
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) != 77)
        CHECK(WEXITSTATUS(status) == 0,
              "out of memory: izb_closed_find_threads returned true or left output");
    else
        printf("out-of-memory check not run (no fork or no address-space cap)\n");

    float xyz[9 * MAX_TRIS];
    const float o[3] = {0, 0, 0}, far[3] = {5, 0, 0};

    /* a closed cube: one component, all 12 cullable, its box */
    int n = test_add_cube(xyz, 0, o, 1.0f, false);
    izb_closed c = find(xyz, n);
    CHECK(c.comp_count == 1 && c.cullable == 12, "cube: %d components, %d cullable", c.comp_count,
          c.cullable);
    CHECK(c.boxes[0] == -1 && c.boxes[3] == 1 && c.boxes[2] == -1 && c.boxes[5] == 1, "cube box");

    /* izb_may_cull: directional always; spot only from outside the box; on / off */
    izb_cull_view v = {.mode = IZB_CULL_AUTO, .comp = c.comp, .boxes = c.boxes, .light_is_spot = 0};
    CHECK(izb_may_cull(&v, 0), "directional light: cull the closed cube");
    v.light_is_spot = 1;
    memcpy(v.light_origin, (float[3]){0.2f, 0.5f, -0.3f}, sizeof v.light_origin);
    CHECK(!izb_may_cull(&v, 0), "spot inside the cube: keep its back faces");
    memcpy(v.light_origin, (float[3]){1.0005f, 0.0f, 0.0f}, sizeof v.light_origin);
    CHECK(!izb_may_cull(&v, 0), "spot on the box's margin counts as inside");
    memcpy(v.light_origin, (float[3]){0.0f, 3.0f, 0.0f}, sizeof v.light_origin);
    CHECK(izb_may_cull(&v, 0), "spot outside the cube: cull");
    memcpy(v.light_origin, (float[3]){NAN, NAN, NAN}, sizeof v.light_origin);
    CHECK(!izb_may_cull(&v, 0), "a NaN light position counts as inside");
    v.mode = IZB_CULL_OFF;
    CHECK(!izb_may_cull(&v, 0), "off: never");
    v.mode = IZB_CULL_ON;
    v.comp = NULL;
    CHECK(izb_may_cull(&v, 0), "on: always, closed or not");
    v.mode = IZB_CULL_AUTO;
    CHECK(!izb_may_cull(&v, 0), "auto without the analysis: nothing");
    izb_closed_free(&c);

    /* defects, each making the cube open */
    n = test_add_cube(xyz, 0, o, 1.0f, false) - 1; /* one triangle missing: a boundary */
    c = find(xyz, n);
    CHECK(c.comp_count == 0 && c.cullable == 0, "cube with a hole: open (%d cullable)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, o, 1.0f, false); /* one triangle flipped: inconsistent orientation */
    float t[3];
    memcpy(t, xyz + 3, sizeof t), memcpy(xyz + 3, xyz + 6, sizeof t), memcpy(xyz + 6, t, sizeof t);
    c = find(xyz, n);
    CHECK(c.cullable == 0, "cube with a flipped triangle: open (%d cullable)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, o, 1.0f, true); /* inside out: negative volume */
    c = find(xyz, n);
    CHECK(c.cullable == 0, "inside-out cube: not cullable (%d)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, o, 1.0f, false); /* a fin: a third triangle on an edge (non-manifold) */
    memcpy(xyz + 9 * n, xyz, 6 * sizeof(float));
    memcpy(xyz + 9 * n + 6, (float[3]){3.0f, 3.0f, 3.0f}, 3 * sizeof(float));
    c = find(xyz, n + 1);
    CHECK(c.cullable == 0, "cube with a fin: open (%d cullable)", c.cullable);
    izb_closed_free(&c);

    /* two cubes and a single-sided card: two components; the card stays */
    n = test_add_cube(xyz, 0, o, 1.0f, false);
    n = test_add_cube(xyz, n, far, 0.5f, false);
    const float card[9] = {0, 3, 0, 1, 3, 0, 0, 3, 1};
    memcpy(xyz + 9 * n++, card, sizeof card);
    c = find(xyz, n);
    CHECK(c.comp_count == 2 && c.cullable == 24 && c.comp[n - 1] == IZB_OPEN && c.comp[0] != c.comp[12],
          "two cubes and a card: %d components, %d cullable", c.comp_count, c.cullable);
    CHECK(c.boxes[6 * c.comp[12]] == 4.5f && c.boxes[6 * c.comp[12] + 3] == 5.5f, "second cube's box");
    izb_closed_free(&c);

    /* far from the origin: a small cube keeps its orientation's sign (no cancellation) */
    const float distant[3] = {1e5f, -2e5f, 3e5f};
    n = test_add_cube(xyz, 0, distant, 1.0f, false);
    c = find(xyz, n);
    CHECK(c.cullable == 12, "small cube far away: closed and outward (%d cullable)", c.cullable);
    izb_closed_free(&c);
    n = test_add_cube(xyz, 0, distant, 1.0f, true);
    c = find(xyz, n);
    CHECK(c.cullable == 0, "small inside-out cube far away: not cullable (%d)", c.cullable);
    izb_closed_free(&c);

    /* empty scenes */
    CHECK(izb_closed_find(xyz, 0, &c) && c.comp == NULL && c.cullable == 0, "no triangles");

    /* built-in scenes: every object closed, the ground (2 triangles) not */
    static const char *const names[] = {"default", "spheres", "tesseract", "grass"};
    for (int i = 0; i < 4; i++) {
        scene s;
        char err[256];
        if (!scene_builtin(names[i], 20000, &s, err, sizeof err)) {
            CHECK(false, "%s: %s", names[i], err);
            continue;
        }
        c = find(s.xyz, s.tri_count);
        printf("%-9s %7d triangles, %6d closed components, %7d cullable (%.2f%%)\n", names[i], s.tri_count,
               c.comp_count, c.cullable, 100.0 * c.cullable / s.tri_count);
        CHECK(c.cullable == s.tri_count - 2 && c.comp[0] == IZB_OPEN && c.comp[1] == IZB_OPEN,
              "%s: all but the ground cullable (%d of %d)", names[i], c.cullable, s.tri_count);
        izb_closed_free(&c);
        scene_free(&s);
    }

    /* the partitioned analysis against the reference */
    soup sp = {0};
    int closed_seen = 0, open_seen = 0;
    char what[96];
    for (int i = 0; i < 300; i++) {
        random_scene(&sp, 1 + rnd_int(i < 250 ? 12 : 120));
        snprintf(what, sizeof what, "random scene %d (%d triangles)", i, sp.n);
        check_same(sp.xyz, sp.n, what, &closed_seen, &open_seen);
    }
    CHECK(closed_seen > 300 && open_seen > 100, "the random scenes hold closed (%d) and open (%d) components",
          closed_seen, open_seen);
    /* one partition holding everything: one triangle 30000 times, and 10000 copies of a cube */
    sp.n = 0;
    for (int i = 0; i < 30000; i++)
        soup_tri(&sp, (float[3]){1, 2, 3}, (float[3]){4, 5, 6}, (float[3]){7, 8, 10});
    check_same(sp.xyz, sp.n, "one triangle 30000 times", NULL, NULL);
    sp.n = 0;
    for (int i = 0; i < 10000; i++)
        soup_cube(&sp, o, 1.0f, 1, false);
    check_same(sp.xyz, sp.n, "a cube 10000 times", NULL, NULL);
    /* 2000 separate cubes, shuffled: many partitions, many components */
    sp.n = 0;
    for (int i = 0; i < 2000; i++)
        soup_cube(&sp, (float[3]){(float)(i % 50) * 3, (float)(i / 50) * 3, 0.0f}, 1.0f, 2, i % 7 == 3);
    check_same(sp.xyz, sp.n, "2000 cubes", NULL, NULL);
    check_same(sp.xyz, 1, "one triangle", NULL, NULL);
    free(sp.xyz);

    /* every built-in scene at its default size */
    for (int i = 0; scene_builtin_names[i]; i++) {
        scene s;
        char err[256];
        if (!scene_builtin(scene_builtin_names[i], 0, &s, err, sizeof err)) {
            CHECK(false, "%s: %s", scene_builtin_names[i], err);
            continue;
        }
        snprintf(what, sizeof what, "builtin:%s (%d triangles)", scene_builtin_names[i], s.tri_count);
        check_same(s.xyz, s.tri_count, what, NULL, NULL);
        scene_free(&s);
    }
    return test_done();
}
