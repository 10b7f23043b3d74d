/* scene_assimp.c — scene files through assimp's C API (OBJ+MTL, PLY, glTF, ...: whatever assimp
 * reads), flattened into a world-space triangle soup. Bad faces are counted, not trusted: assimp's
 * own clean-up steps (FindDegenerates, FindInvalidData) are left off on purpose, because they would
 * drop or rewrite such faces before we could count them. Materials and texture coordinates
 * ride along for the renderer (scene_material.c). */
#include "scene.h"
#include "scene_common.h"
#include "scene_material.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

/* Triangulate polygons; bake the node hierarchy into world space; make normals where the file has
 * none (smooth, so curved models shade smoothly); ValidateDataStructure rejects out-of-range
 * indices and similar corruption with a message instead of letting us read past arrays. */
static const unsigned IMPORT_FLAGS = aiProcess_Triangulate | aiProcess_PreTransformVertices |
                                     aiProcess_GenSmoothNormals | aiProcess_ValidateDataStructure;

/* vertices are read as 3 packed floats (assimp built without ASSIMP_DOUBLE_PRECISION, as Debian's) */
_Static_assert(sizeof(struct aiVector3D) == 3 * sizeof(float), "aiVector3D is not 3 floats");

/* A face is degenerate when its height is below this fraction of its longest edge: collinear
 * within float precision (the inputs' rounding alone leaves ~1e-7), so its normal is noise. */
static const double DEGENERATE_RATIO = 1e-6;

/* Reject files whose header declares far more elements than the file could hold (false, message in
 * err). assimp's OFF and PLY readers allocate and zero the declared counts before reading:
 * models/invalid/OutOfMemory.off makes it touch 16 GB, and a 300-byte PLY claiming 1.5e9 vertices
 * gets the process killed. Other formats are left to assimp. */
static bool header_fits(const char *path, long long size, char *err, size_t err_size);
static const unsigned long long SATURATE = 1ull << 40; /* counts above this are absurd anyway */
/* Classify a triangle: 0 = keep (face normal in fn), 1 = non-finite, 2 = degenerate. */
static int classify(const float *p[3], float fn[3]);
/* Append the kept triangles of one mesh; false on a corrupt index (message in err). */
static bool add_mesh(const struct aiMesh *m, const char *path, scene *s, char *err, size_t err_size);
static const char *base_name(const char *path);
/* Does a mesh of the freshly imported scene hold a face without vertex indices? */
static bool has_empty_face(const struct aiScene *ai);

bool scene_load_file(const char *path, scene *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (!path || !*path) return scene_errorf(err, err_size, "scene: empty file name");

    /* Check the file ourselves first: assimp's messages for these cases are vague. */
    struct stat st;
    if (stat(path, &st) != 0) return scene_errorf(err, err_size, "scene '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return scene_errorf(err, err_size, "scene '%s': is a directory", path);
    if (!S_ISREG(st.st_mode)) return scene_errorf(err, err_size, "scene '%s': not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return scene_errorf(err, err_size, "scene '%s': %s", path, strerror(errno));
    fclose(f);
    if (st.st_size == 0) return scene_errorf(err, err_size, "scene '%s': empty file", path);

    if (!header_fits(path, (long long)st.st_size, err, err_size)) return false;

    /* Import, then post-process: assimp 5.2's triangulation aborts the whole process (an ai_assert)
     * on a face without indices, which its validation lets through (fuzz_scene found one in a
     * binary PLY), and dropping such faces can leave an empty mesh on which its post-processing
     * fails and then crashes while cleaning up; so a file with one is refused before either. */
    const struct aiScene *ai = aiImportFile(path, aiProcess_ValidateDataStructure);
    if (ai && has_empty_face(ai)) {
        aiReleaseImport(ai);
        return scene_errorf(err, err_size, "scene '%s': a face without vertex indices", path);
    }
    if (ai) ai = aiApplyPostProcessing(ai, IMPORT_FLAGS & ~(unsigned)aiProcess_ValidateDataStructure);
    if (!ai) {
        const char *why = aiGetErrorString();
        return scene_errorf(err, err_size, "scene '%s': assimp: %s", path,
                            why && *why ? why : "import failed");
    }

    /* One allocation for the upper bound (every 3-index face kept), trimmed at the end. */
    long long cap = 0;
    for (unsigned i = 0; i < ai->mNumMeshes; i++)
        if (ai->mMeshes[i] && ai->mMeshes[i]->mFaces) cap += ai->mMeshes[i]->mNumFaces;
    if (cap > INT_MAX) {
        aiReleaseImport(ai);
        return scene_errorf(err, err_size, "scene '%s': too many faces (%lld, at most %d)", path, cap,
                            INT_MAX);
    }
    bool any_uv = false;
    for (unsigned i = 0; i < ai->mNumMeshes; i++)
        any_uv |= ai->mMeshes[i] && ai->mMeshes[i]->mTextureCoords[0];
    if (cap > 0) {
        out->xyz = malloc((size_t)cap * 9 * sizeof(float));
        out->normals = malloc((size_t)cap * 9 * sizeof(float));
        out->uv = any_uv ? malloc((size_t)cap * 6 * sizeof(float)) : NULL;
        out->ranges = ai->mNumMeshes ? malloc(ai->mNumMeshes * sizeof *out->ranges) : NULL;
        if (!out->xyz || !out->normals || (any_uv && !out->uv) || (ai->mNumMeshes && !out->ranges)) {
            aiReleaseImport(ai);
            scene_free(out);
            return scene_errorf(err, err_size, "scene '%s': out of memory for %lld triangles", path, cap);
        }
    }
    for (unsigned i = 0; i < ai->mNumMeshes; i++) {
        const struct aiMesh *m = ai->mMeshes[i];
        int first = out->tri_count;
        if (m && !add_mesh(m, path, out, err, err_size)) {
            aiReleaseImport(ai);
            scene_free(out);
            return false;
        }
        /* one material per mesh (assimp's rule): its triangles are one range */
        if (m && out->tri_count > first && !scene_material_is_default(ai, m->mMaterialIndex))
            out->ranges[out->range_count++] =
                (scene_range){.first = first, .count = out->tri_count - first, .material = (int)m->mMaterialIndex};
    }
    out->uv_tri_count = out->uv ? out->tri_count : 0;
    if (out->tri_count > 0 && !scene_materials_load(ai, path, out, err, err_size)) {
        aiReleaseImport(ai);
        scene_free(out);
        return false;
    }
    aiReleaseImport(ai);

    if (out->tri_count == 0) {
        int nf = out->dropped_nonfinite, dg = out->dropped_degenerate;
        scene_free(out);
        return scene_errorf(err, err_size,
                            "scene '%s': no triangles (%d faces with NaN/Inf dropped, %d degenerate: points, "
                            "lines or zero area)",
                            path, nf, dg);
    }
    if (out->tri_count < cap) {
        float *x = realloc(out->xyz, (size_t)out->tri_count * 9 * sizeof(float));
        float *n = x ? realloc(out->normals, (size_t)out->tri_count * 9 * sizeof(float)) : NULL;
        float *u = out->uv ? realloc(out->uv, (size_t)out->tri_count * 6 * sizeof(float)) : NULL;
        if (x) out->xyz = x;
        if (n) out->normals = n;
        if (u) out->uv = u;
    }
    snprintf(out->name, sizeof out->name, "%s", base_name(path));
    scene_frame_view(out);
    return true;
}

static bool add_mesh(const struct aiMesh *m, const char *path, scene *s, char *err, size_t err_size)
{
    if (!m->mFaces) return true;
    for (unsigned f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *face = &m->mFaces[f];
        if (face->mNumIndices != 3 || !face->mIndices || !m->mVertices) {
            s->dropped_degenerate++; /* points and lines (Triangulate leaves no polygons) */
            continue;
        }
        const float *p[3];
        for (int k = 0; k < 3; k++) {
            unsigned v = face->mIndices[k];
            if (v >= m->mNumVertices)
                return scene_errorf(err, err_size,
                                    "scene '%s': face %u of mesh '%s' has vertex index %u of %u", path, f,
                                    m->mName.data, v, m->mNumVertices);
            p[k] = &m->mVertices[v].x;
        }
        float fn[3];
        int c = classify(p, fn);
        if (c == 1) {
            s->dropped_nonfinite++;
            continue;
        }
        if (c == 2) {
            s->dropped_degenerate++;
            continue;
        }
        float *ox = s->xyz + 9 * (size_t)s->tri_count, *on = s->normals + 9 * (size_t)s->tri_count;
        if (s->uv) { /* texture coordinates of the first set; (0, 0) where the mesh has none */
            float *ou = s->uv + 6 * (size_t)s->tri_count;
            const struct aiVector3D *tc = m->mTextureCoords[0];
            for (int k = 0; k < 3; k++) {
                float u = tc ? tc[face->mIndices[k]].x : 0.0f, v = tc ? tc[face->mIndices[k]].y : 0.0f;
                ou[2 * k] = isfinite(u) ? u : 0.0f;
                ou[2 * k + 1] = isfinite(v) ? v : 0.0f;
            }
        }
        for (int k = 0; k < 3; k++) {
            memcpy(ox + 3 * k, p[k], 3 * sizeof(float));
            const float *n = m->mNormals ? &m->mNormals[face->mIndices[k]].x : fn;
            double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
            if (!isfinite(l) || l < 1e-20) n = fn, l = 1.0;
            for (int i = 0; i < 3; i++)
                on[3 * k + i] = (float)(n[i] / l);
        }
        s->tri_count++;
    }
    return true;
}

static int classify(const float *p[3], float fn[3])
{
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            if (!isfinite(p[k][i])) return 1;
    /* in double, so the test sees the float inputs' geometry and not our own rounding */
    double e[3][3], n[3], len2[3];
    for (int i = 0; i < 3; i++) {
        e[0][i] = (double)p[1][i] - p[0][i];
        e[1][i] = (double)p[2][i] - p[0][i];
        e[2][i] = (double)p[2][i] - p[1][i];
    }
    n[0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
    n[1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
    n[2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    for (int k = 0; k < 3; k++)
        len2[k] = e[k][0] * e[k][0] + e[k][1] * e[k][1] + e[k][2] * e[k][2];
    double longest2 = fmax(len2[0], fmax(len2[1], len2[2]));
    double area2 = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]); /* |cross| = longest * height */
    if (!(area2 > DEGENERATE_RATIO * longest2) || !isfinite(area2)) return 2;
    for (int i = 0; i < 3; i++)
        fn[i] = (float)(n[i] / area2);
    return 0;
}

/* count declared by "element NAME COUNT" lines of a PLY header (saturating) */
static unsigned long long ply_elements(const char *head, const char *end)
{
    unsigned long long total = 0;
    for (const char *l = strstr(head, "\nelement"); l && l < end; l = strstr(l + 8, "\nelement")) {
        const char *c = l + 8;
        while (*c == ' ' || *c == '\t')
            c++;
        while (*c && *c != ' ' && *c != '\t' && *c != '\n') /* the element's name */
            c++;
        errno = 0;
        unsigned long long k = strtoull(c, NULL, 10);
        total += errno || k > SATURATE ? SATURATE : k;
        total = total > SATURATE ? SATURATE : total;
    }
    return total;
}

static bool header_fits(const char *path, long long size, char *err, size_t err_size)
{
    char head[16384];
    FILE *f = fopen(path, "rb");
    if (!f) return true; /* the caller checked it; let assimp report whatever changed since */
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0'; /* binary data after a header ends the string early: fine */
    unsigned long long bytes = (unsigned long long)size;

    if (strncmp(head, "ply", 3) == 0 && (head[3] == '\n' || head[3] == '\r')) {
        /* an element takes at least 1 byte in binary, 2 in ascii ("0\n") */
        const char *end = strstr(head, "end_header");
        /* assimp 5.2 spins for minutes on a PLY whose header never ends (fuzz_scene found it) */
        if (!end)
            return scene_errorf(err, err_size,
                                "scene '%s': PLY header without end_header in its first %zu bytes", path,
                                sizeof head - 1);
        /* the data starts after end_header's line break: another byte there shifts assimp's binary
         * reader off its buffer (a SEGV inside assimp, found by fuzz_scene) */
        if (end[10] != '\n' && end[10] != '\r')
            return scene_errorf(err, err_size, "scene '%s': PLY end_header not followed by a line break",
                                path);
        const char *bin = strstr(head, "format binary");
        unsigned long long min = bin && bin < end ? 1 : 2, count = ply_elements(head, end);
        if (count * min > bytes)
            return scene_errorf(err, err_size,
                                "scene '%s': header declares %llu elements, more than its %lld bytes hold",
                                path, count, size);
        return true;
    }
    size_t pre = strspn(head, "STCN4n"); /* OFF's variants: STOFF, COFF, NOFF, 4OFF, nOFF, ... */
    if (pre < 6 && strncmp(head + pre, "OFF", 3) == 0 && strchr(" \t\r\n", head[pre + 3])) {
        const char *off = head + pre;
        /* "[ST][C][N][4][n]OFF", comments, then "vertices faces edges"; a vertex takes at least
         * 6 bytes ("0 0 0\n"), a face 4 ("1 0\n") */
        const char *c = off + 3;
        for (;;) {
            while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')
                c++;
            if (*c != '#') break;
            while (*c && *c != '\n')
                c++;
        }
        char *e;
        errno = 0;
        unsigned long long nv = strtoull(c, &e, 10), nf = strtoull(e, NULL, 10);
        nv = errno || nv > SATURATE ? SATURATE : nv;
        nf = errno || nf > SATURATE ? SATURATE : nf;
        if (6 * nv + 4 * nf > bytes)
            return scene_errorf(
                err, err_size,
                "scene '%s': header declares %llu vertices and %llu faces, more than its %lld bytes hold",
                path, nv, nf, size);
    }
    return true;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static bool has_empty_face(const struct aiScene *ai)
{
    for (unsigned m = 0; m < ai->mNumMeshes; m++)
        for (unsigned f = 0; f < ai->mMeshes[m]->mNumFaces; f++)
            if (ai->mMeshes[m]->mFaces[f].mNumIndices == 0) return true;
    return false;
}
