#version 450 core
// cells.frag — cell-occupancy heat map: the grid_w x grid_h counts (top-left part of an R32F
// texture) stretched over the viewport; empty cells dark; cell borders when cells are >= 6 px.

in vec2 v_uv;

uniform sampler2D u_cells; // R32F point counts, texel (cx, cy) = cell cy * grid_w + cx
uniform ivec2 u_grid;      // grid_w, grid_h
uniform float u_max;       // the fullest cell's count

layout(location = 0) out vec4 o_colour;

vec3 ramp(float count, float maxc)
{
    float t = clamp(log(1.0 + count) / log(1.0 + max(maxc, 1.0)), 0.0, 1.0);
    return clamp(vec3(1.5) - abs(vec3(4.0 * t) - vec3(3.0, 2.0, 1.0)), 0.0, 1.0); // "jet"
}

void main()
{
    vec2 g = v_uv * vec2(u_grid);
    ivec2 cell = clamp(ivec2(g), ivec2(0), u_grid - 1);
    float n = texelFetch(u_cells, cell, 0).r;
    vec3 c = n > 0.0 ? ramp(n, u_max) : vec3(0.06, 0.06, 0.08);
    vec2 px = fwidth(g); // cells per pixel
    vec2 f = fract(g);
    if (px.x < 1.0 / 6.0 && px.y < 1.0 / 6.0 && (f.x < px.x || f.y < px.y))
        c *= 0.6;
    o_colour = vec4(c, 1.0);
}
