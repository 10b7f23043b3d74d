#version 450 core
// sky.frag — background where the depth pass found no geometry: a vertical gradient.

in vec2 v_uv;

layout(location = 0) out vec4 o_colour;

void main()
{
    vec3 horizon = vec3(0.78, 0.85, 0.92);
    vec3 zenith = vec3(0.33, 0.52, 0.78);
    o_colour = vec4(mix(horizon, zenith, clamp(v_uv.y, 0.0, 1.0)), 1.0);
}
