#version 450 core
// hud.vert — HUD text quads: pixel coordinates from the top-left (stb_easy_font's convention),
// scaled, to clip space.

layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_colour;

uniform float u_scale;   // pixels per font unit
uniform vec2 u_viewport; // framebuffer size in pixels

out vec4 v_colour;

void main()
{
    vec2 p = a_pos * u_scale + vec2(6.0);
    v_colour = a_colour;
    gl_Position = vec4(p.x / u_viewport.x * 2.0 - 1.0, 1.0 - p.y / u_viewport.y * 2.0, 0.0, 1.0);
}
