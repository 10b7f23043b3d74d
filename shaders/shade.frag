#version 450 core
// shade.frag — diffuse (N.L, spot cone falloff) + hemisphere ambient, with the direct term
// multiplied by the IZB shadow mask (R8: 1 lit, 0 in shadow or outside the spot). Output is
// gamma-encoded (the colour target is plain RGBA8, read back as is for screenshots). A loaded
// model's own material replaces the tint: base colour, times its sRGB texture where it has one.

in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;

// Several lights (view.h light_set, up to 8): each one's diffuse term times its own mask, summed.
// Light 0's mask is u_mask (the texture CUDA's interop writes); lights 1.. read layer i-1 of
// u_masks, one GL_R8 layer per light (render_lights.c says why an array).
#define MAX_LIGHTS 8
uniform sampler2D u_mask;      // GL_R8, one texel per pixel, row 0 at the bottom
uniform sampler2DArray u_masks; // lights 1..: their masks, layer i-1
uniform int u_light_count;     // 1 .. MAX_LIGHTS
uniform int u_light_type[MAX_LIGHTS];  // 0 directional, 1 spot, 2 point
uniform vec3 u_light_dir[MAX_LIGHTS];  // direction the light travels, normalised
uniform vec3 u_light_pos[MAX_LIGHTS];  // spot and point position
uniform float u_cos_outer[MAX_LIGHTS]; // spot: cos(half cone); beyond it spot = 0, at the very angle where
                               // the mask's round cone ends (izb_spot_outside): shading, not shadow
uniform float u_cos_inner[MAX_LIGHTS]; // spot: where the falloff starts
uniform float u_intensity[MAX_LIGHTS]; // the light's colour times this; 0: it adds nothing
uniform vec3 u_cam_pos;
uniform vec3 u_bounds_min;
uniform vec3 u_bounds_max;
uniform int u_show_mask;       // 1: tint shadowed pixels red (debug overlay)
uniform sampler2D u_mask2;     // difference view: the shadow-map mask (u_mask is the IZB's)
uniform int u_diff;            // 1: pixels where the masks disagree: red map says shadow, blue IZB
uniform int u_material;        // 0: the tint below, 1: u_base_colour, 2: u_base_colour x u_base_tex
uniform vec4 u_base_colour;    // linear (MTL Kd, glTF baseColorFactor)
uniform sampler2D u_base_tex;  // GL_SRGB8_ALPHA8, row 0 = the image's top row
uniform uint u_first;          // the draw's first scene triangle: u_first + gl_PrimitiveID is its index

// Cut-outs: the base colour's alpha cuts by the same rule as the depth pass (alpha_test.frag, from
// the texture's alpha channel uploaded as R8), so a pixel the depth pass left to the surface
// behind is not covered by the card's colour.
bool alpha_cut(uint tri, vec2 uv);

layout(location = 0) out vec4 o_colour;

const vec3 LIGHT_COLOUR = vec3(1.0, 0.95, 0.86);
const vec3 AMBIENT_SKY = vec3(0.22, 0.26, 0.34);
const vec3 AMBIENT_GROUND = vec3(0.12, 0.11, 0.10);

// A tint from height and orientation: a grey ground with faint tiles (they show scale and
// motion), warm low objects turning cooler with height.
vec3 albedo(vec3 p, vec3 n)
{
    vec3 ext = max(u_bounds_max - u_bounds_min, vec3(1e-6));
    float h = clamp((p.y - u_bounds_min.y) / ext.y, 0.0, 1.0);
    if (h < 0.01 && n.y > 0.9) {
        vec2 tile = floor((p.xz - u_bounds_min.xz) / (max(ext.x, ext.z) / 24.0));
        return vec3(0.50, 0.50, 0.48) * (mod(tile.x + tile.y, 2.0) < 1.0 ? 1.0 : 0.92);
    }
    vec3 low = vec3(0.80, 0.48, 0.32);
    vec3 high = vec3(0.34, 0.52, 0.80);
    vec3 c = mix(low, high, smoothstep(0.05, 0.7, h));
    return mix(c, vec3(0.80, 0.78, 0.74), 0.25 * max(n.y, 0.0));
}

// light i's N.L times its spot cone at this fragment (n: the normal turned to the camera)
float light_term(int i, vec3 n)
{
    vec3 l;
    float spot = 1.0;
    if (u_light_type[i] >= 1) {
        vec3 d = normalize(v_world - u_light_pos[i]);
        l = -d;
        if (u_light_type[i] == 1) // a point light shines every way: no cone
            spot = smoothstep(u_cos_outer[i], u_cos_inner[i], dot(d, u_light_dir[i]));
    } else {
        l = -u_light_dir[i];
    }
    return max(dot(n, l), 0.0) * spot;
}

void main()
{
    if (alpha_cut(u_first + uint(gl_PrimitiveID), v_uv)) discard;
    vec3 n = normalize(v_normal);
    // Two-sided: a face seen from behind is shaded with its normal turned to the camera.
    if (dot(n, u_cam_pos - v_world) < 0.0)
        n = -n;

    // the sum over lights of N.L x cone x visibility x intensity. Light 0 outside the loop, as the
    // one light was: a one-light frame does no more than before (the loop runs no iteration) and is
    // bit for bit the same image (x * 1.0 is exact)
    float lit = texelFetch(u_mask, ivec2(gl_FragCoord.xy), 0).r; // the overlay and difference views: light 0
    float direct = light_term(0, n) * lit * u_intensity[0];
    for (int i = 1; i < u_light_count; i++)
        direct += light_term(i, n) * texelFetch(u_masks, ivec3(ivec2(gl_FragCoord.xy), i - 1), 0).r * u_intensity[i];

    vec3 a = albedo(v_world, n);
    if (u_material >= 1) {
        a = u_base_colour.rgb;
        if (u_material == 2) // texture coordinates have v up (assimp, GL); the image's rows run down
            a *= texture(u_base_tex, vec2(v_uv.x, 1.0 - v_uv.y)).rgb;
    }
    vec3 ambient = a * mix(AMBIENT_GROUND, AMBIENT_SKY, 0.5 + 0.5 * n.y);
    vec3 c = ambient + a * LIGHT_COLOUR * direct;
    if (u_show_mask == 1 && lit < 0.5)
        c = mix(c, vec3(0.9, 0.1, 0.1), 0.5);
    if (u_diff == 1) {
        float other = texelFetch(u_mask2, ivec2(gl_FragCoord.xy), 0).r;
        if ((lit < 0.5) != (other < 0.5))
            c = other < 0.5 ? vec3(1.0, 0.12, 0.08) : vec3(0.1, 0.45, 1.0);
    }
    o_colour = vec4(pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
