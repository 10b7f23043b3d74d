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

bool alpha_cut(uint tri, vec2 uv); // alpha_test.frag: the depth pass's cut, for the same pixels
bool alpha_sheet(uint tri);        // alpha_test.frag: a cut-out triangle, lit from either side

layout(location = 0) out float o_lit;

void main()
{
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
    if (u_pcf == 1) {
        float sum = 0.0;
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++)
                sum += texture(u_map, vec3(s.xy + vec2(x, y) * u_texel, s.z));
        o_lit = sum / 9.0;
    } else {
        o_lit = texture(u_map, s);
    }
}
