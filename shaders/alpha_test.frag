#version 450 core
// alpha_test.frag — the GLSL mirror of core/izb_alpha.h's texel rule and cutoff, linked as a second
// fragment shader object into every program that draws the scene (depth, shading, shadow map, its
// mask), which declare `bool alpha_cut(uint tri, vec2 uv);` and discard where it is true. Mirrors,
// line by line: izb_alpha_wrap (alpha_wrap), izb_alpha_texel + izb_alpha_keeps (alpha_keeps);
// tests/render/test_render_alpha.c checks it equal to them on texel centres and edges, every wrap,
// wide, huge and non-finite UVs. No filtering, no mip: texelFetch of the image's R8 alpha, the
// nearest texel at mip 0, and the integer threshold compare, so the C and the GLSL agree exactly.
// The UV is the interpolated vertex UV (the camera's and the light map's passes); the IZB derives
// its own from the light ray's hit (izb_alpha_uv).

layout(binding = 5) uniform usamplerBuffer u_alpha_pool;   // R8UI: every image's alpha, row 0 at v = 0
layout(binding = 6) uniform usamplerBuffer u_alpha_images; // RGBA32UI per image: offset, width, height,
                                                           // wrap_u | wrap_v << 8 | threshold << 16
layout(binding = 7) uniform usamplerBuffer u_alpha_tris;   // R32UI per scene triangle: image, or
                                                           // 0xffffffff (IZB_OPAQUE)
uniform int u_alpha_on; // 0: nothing is cut (--alpha-test off, or a scene without cut-outs)

// izb_alpha_wrap: texel index along one axis. GLSL's % is undefined for negative operands, so the
// index is first moved up by a multiple of the period (i >= -2^30, so the sum stays below 2^31).
int alpha_wrap(float c, int size, uint wrap)
{
    float s = c * float(size);
    s = s >= -1073741824.0 ? min(s, 1073741824.0) : -1073741824.0; // izb_clampf: NaN -> the low end
    int i = int(floor(s));
    if (wrap == 1u) return clamp(i, 0, size - 1); // IZB_WRAP_CLAMP
    if (wrap == 2u) {                             // IZB_WRAP_MIRROR
        int p = 2 * size, m = (i + p * (1073741824 / p + 1)) % p;
        return m < size ? m : p - 1 - m;
    }
    return (i + size * (1073741824 / size + 1)) % size; // IZB_WRAP_REPEAT
}

// izb_alpha_keeps for image img at uv
bool alpha_keeps(uint img, vec2 uv)
{
    uvec4 p = texelFetch(u_alpha_images, int(img));
    int w = int(p.y), h = int(p.z);
    int col = alpha_wrap(uv.x, w, p.w & 0xffu), row = alpha_wrap(uv.y, h, (p.w >> 8) & 0xffu);
    uint a = texelFetch(u_alpha_pool, int(p.x) + row * w + col).r;
    return a >= ((p.w >> 16) & 0xffu);
}

// Is scene triangle tri cut away at uv?
bool alpha_cut(uint tri, vec2 uv)
{
    if (u_alpha_on == 0) return false;
    uint img = texelFetch(u_alpha_tris, int(tri)).r;
    return img != 0xffffffffu && !alpha_keeps(img, uv);
}

// Is scene triangle tri a cut-out: a sheet (leaf card, fence panel) with no inside, lit from
// either side (the truth and the IZB skip a point's own sheet by the bias, whatever its winding)?
bool alpha_sheet(uint tri)
{
    return u_alpha_on != 0 && texelFetch(u_alpha_tris, int(tri)).r != 0xffffffffu;
}
