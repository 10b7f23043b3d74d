#version 450 core
// debug.frag — debug views: the raw shadow mask (white lit, black shadow, blue sky) or the
// linear depth (near white, far black, blue sky).

in vec2 v_uv;

uniform sampler2D u_depth; // GL_R32F linear view depth, 0 = sky
uniform sampler2D u_mask;  // GL_R8
uniform int u_mode;        // 1 mask, 2 depth
uniform float u_far;       // depth that maps to black

layout(location = 0) out vec4 o_colour;

void main()
{
    ivec2 px = ivec2(gl_FragCoord.xy);
    float d = texelFetch(u_depth, px, 0).r;
    if (!(d > 0.0)) {
        o_colour = vec4(0.2, 0.3, 0.6, 1.0);
        return;
    }
    float v = u_mode == 1 ? texelFetch(u_mask, px, 0).r : 1.0 - clamp(d / u_far, 0.0, 1.0);
    o_colour = vec4(vec3(v), 1.0);
}
