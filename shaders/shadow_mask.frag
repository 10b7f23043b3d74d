#version 450 core
// shadow_mask.frag — the shadow-map mask: drawn over the scene with shade.vert (depth-tested
// GL_LEQUAL against the camera depth pass, so exactly the covered pixels), it looks each visible
// point up in the shadow map and writes the R8 mask the same way the IZB does: 1 lit, 0 in
// shadow or outside the spot light. Sky pixels keep the cleared 1. The shading pass then reads
// either mask with the same code.
//
// Bias, in three parts (render/shadow_map.c has the defaults):
//  - the IZB's own bias: the receiver moves toward the light by the same amount the IZB and the
//    ray-cast oracle use (2e-4 of the light depth range, or of the distance to a spot), so a
//    mismatch with the truth is the shadow map's error and not a difference of definitions;
//  - normal offset: along the surface normal, a number of shadow-map texels (their world size at
//    the receiver) scaled by sin(angle to the light);
//  - slope-scaled polygon offset in the map itself (glPolygonOffset).
//
// PCSS (u_pcss = 1: a directional light with an angle, or an area light: a spot with a size;
// shadow_map_desc.pcss): pcss_lit below
// mirrors izb_pcss_lit (core/izb_pcss.h, which has the derivation) line for line, with the
// receiver-plane slope from this pixel's face; tests/render/test_shadow_pcss.c holds the two
// equal. Locations 1 and 2 (the test's probe, shadow_map_set_probe) get the filter's inputs;
// without the probe they have no draw buffer and are dropped.

in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;

uniform sampler2DShadow u_map; // depth from the light; compare LEQUAL; nearest or linear (PCF)
uniform mat4 u_light;          // world -> light clip, as in shadow_depth.vert
uniform int u_spot;            // 0 directional; at u_light_pos: 1 spot, 2 a point light's cube face
                               // (IZB_LIGHT_SPOT, IZB_LIGHT_FACE in core/izb_math.h)
uniform vec3 u_light_dir;      // direction the light travels, normalised
uniform vec3 u_light_pos;
uniform float u_bias;          // IZB bias: directional, world units; spot, fraction of the distance
uniform float u_texel_world;   // world size of one texel (directional), per unit of clip w (spot)
uniform float u_normal_offset; // in texels
uniform int u_pcf;             // 1: 3x3 taps of bilinear compares (soft: fractional mask)
uniform float u_texel;         // 1 / map size
uniform uint u_first;          // the draw's first scene triangle (cut-outs)
uniform int u_pcss;            // 1: PCSS (izb_pcss.h) instead of the hard compare or PCF
uniform vec2 u_pcss_k;         // izb_pcss.ku, kv
uniform float u_pcss_z0;       // izb_pcss.z0: the blocker search's nearest depth
uniform float u_map_size;      // texels a side
// izb_pcss.h's IZB_PCSS_SEARCH_TAPS, _FILTER_TAPS, _ROTATIONS, _MAX_SLOPE (shadow_map.c refuses
// a program whose arrays are not these sizes)
const int PCSS_SEARCH_TAPS = 32;
const int PCSS_FILTER_TAPS = 64;
const int PCSS_ROTATIONS = 16;
const float PCSS_MAX_SLOPE = 8.0;
uniform vec2 u_pcss_search[PCSS_SEARCH_TAPS]; // the unit disk's taps (izb_pcss.search, .filter)
uniform vec2 u_pcss_filter[PCSS_FILTER_TAPS];
uniform vec2 u_pcss_rot[PCSS_ROTATIONS]; // cos, sin (izb_pcss.rot)
// izb_pcss_rotation's 4x4 Bayer matrix
const int PCSS_BAYER[16] = int[16](0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5);
layout(binding = 4) uniform sampler2D u_depth; // the map's depths, nearest, no compare (a sampler object)

bool alpha_cut(uint tri, vec2 uv); // alpha_test.frag: the depth pass's cut, for the same pixels
bool alpha_sheet(uint tri);        // alpha_test.frag: a cut-out triangle, lit from either side

layout(location = 0) out float o_lit;
layout(location = 1) out vec4 o_probe; // s, and 1 where PCSS filtered it
layout(location = 2) out vec2 o_slope; // the receiver-plane slope PCSS used

// the map's depth at uv, nearest texel; 1 outside (the hard map's border)
float pcss_fetch(vec2 uv)
{
    vec2 t = floor(uv * u_map_size);
    if (!(t.x >= 0.0 && t.y >= 0.0 && t.x < u_map_size && t.y < u_map_size)) return 1.0;
    return texelFetch(u_depth, ivec2(t), 0).r;
}

// izb_pcss_turn_: tap t turned by cs
vec2 pcss_turn(vec2 t, vec2 cs)
{
    precise vec2 o = vec2(fma(cs.x, t.x, -(cs.y * t.y)), fma(cs.y, t.x, cs.x * t.y));
    return o;
}

// izb_pcss_lit: blocker search, mean blocker depth, PCF over the penumbra disk
float pcss_lit(vec3 s, vec2 g)
{
    ivec2 px = ivec2(gl_FragCoord.xy) & 3;
    vec2 cs = u_pcss_rot[PCSS_BAYER[px.y * 4 + px.x]]; // izb_pcss_rotation
    vec2 r = u_pcss_k * (s.z - u_pcss_z0); // izb_pcss_search_radius
    float sum = 0.0;
    int blockers = 0;
    for (int i = 0; i < PCSS_SEARCH_TAPS; i++) {
        precise vec2 o = pcss_turn(u_pcss_search[i], cs) * r;
        float d = pcss_fetch(s.xy + o);
        precise float zr = fma(g.x, o.x, fma(g.y, o.y, s.z));
        if (d < zr) {
            sum += d;
            blockers++;
        }
    }
    if (blockers == 0) return 1.0;
    float zb = sum / float(blockers);
    vec2 f = max(u_pcss_k * (s.z - zb), vec2(0.0)); // izb_pcss_filter_radius
    int n = 0;
    for (int j = 0; j < PCSS_FILTER_TAPS; j++) {
        precise vec2 o = pcss_turn(u_pcss_filter[j], cs) * f;
        float d = pcss_fetch(s.xy + o);
        precise float zr = fma(g.x, o.x, fma(g.y, o.y, s.z));
        n += zr <= d ? 1 : 0;
    }
    return float(n) / float(PCSS_FILTER_TAPS);
}

void main()
{
    // the face's plane, for PCSS's receiver-plane bias: derivatives before any branch (the quad's
    // other pixels must be running); within one triangle they are its plane exactly
    vec3 face = cross(dFdx(v_world), dFdy(v_world));
    o_probe = vec4(0.0);
    o_slope = vec2(0.0);
    if (alpha_cut(u_first + uint(gl_PrimitiveID), v_uv)) discard;
    vec3 n = normalize(v_normal); // outward (closed objects) or up (ground): never flipped here
    vec4 q0 = u_light * vec4(v_world, 1.0);
    // Outside the spot's round cone, or a point light's cube face (a square, IZB_LIGHT_FACE), or
    // behind the light: unlit, as the IZB and the oracle say. Mirrors izb_spot_outside and
    // izb_reconstruct_lit (core/izb_math.h): the light's clip space is square with fovy the cone
    // angle, so the cone is the unit circle in (x/w, y/w).
    vec2 c0 = q0.xy / q0.w;
    bool outside = u_spot == 1 ? !(fma(c0.x, c0.x, c0.y * c0.y) <= 1.0) : abs(q0.x) > q0.w || abs(q0.y) > q0.w;
    if (u_spot >= 1 && (!(q0.w > 0.0) || outside)) {
        o_lit = 0.0;
        return;
    }
    vec3 p = v_world;
    vec3 to_light;
    if (u_spot >= 1) {
        p += (u_light_pos - p) * (u_bias / (1.0 + u_bias));
        to_light = normalize(u_light_pos - p);
    } else {
        to_light = -u_light_dir;
        p += to_light * u_bias;
    }
    float c = dot(n, to_light);
    if (c < 0.0 && alpha_sheet(u_first + uint(gl_PrimitiveID))) {
        // A cut-out is a sheet with no inside: its side away from the light is a receiver like
        // any other (the truth skips the sheet itself by the bias), so its normal faces the light.
        n = -n;
        c = -c;
    }
    if (c <= 0.0) {
        // Facing away from the light: in shadow for closed objects (every built-in one is), which
        // is what the truth says; the usual shadow-map practice, and it keeps the normal offset
        // from pushing such points out of their own object's shadow.
        o_lit = 0.0;
        return;
    }
    float texel = u_texel_world * (u_spot >= 1 ? max(q0.w, 0.0) : 1.0);
    p += n * (u_normal_offset * texel * sqrt(1.0 - c * c));

    vec4 q = u_light * vec4(p, 1.0);
    vec3 s = q.xyz / q.w * 0.5 + 0.5;
    o_probe = vec4(s, 0.0);
    if (u_pcss == 1) {
        // the plane's normal in map coordinates (affine: the inverse transpose; its sign and the
        // map's halves cancel in the slope), then dz/du, dz/dv, clamped. A spot's map is
        // projective: the face's plane (face, -face . v_world) goes to clip space by the 4x4
        // inverse transpose and stays a plane in (x/w, y/w, z/w), so its slope is constant too.
        vec3 nm;
        if (u_spot == 1)
            nm = (transpose(inverse(u_light)) * vec4(face, -dot(face, v_world))).xyz;
        else
            nm = transpose(inverse(mat3(u_light))) * face;
        vec2 g = -nm.xy / nm.z;
        float len = length(g);
        if (!(len <= PCSS_MAX_SLOPE)) // steeper than the clamp; NaN or inf (an edge-on face): flat
            g = len > 0.0 && !isinf(len) && !isnan(len) ? g * (PCSS_MAX_SLOPE / len) : vec2(0.0);
        o_probe.w = 1.0;
        o_slope = g;
        o_lit = pcss_lit(s, g);
    } else if (u_pcf == 1) {
        float sum = 0.0;
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++)
                sum += texture(u_map, vec3(s.xy + vec2(x, y) * u_texel, s.z));
        o_lit = sum / 9.0;
    } else {
        o_lit = texture(u_map, s);
    }
}
