#version 450 core
// points.vert — sample points (mode 0) or grid/bbox lines (mode 1) on the light's image plane:
// light clip x, y mapped through u_rect (the light-plane window shown) to the viewport.

layout(location = 0) in vec2 a_pos;   // light image plane (clip x, y)
layout(location = 1) in float a_count; // points in this point's cell (mode 0)

uniform vec4 u_rect;     // min_x, min_y, max_x, max_y of the light plane shown
uniform float u_max;     // the fullest cell's count
uniform int u_mode;      // 0 points, 1 lines
uniform vec4 u_colour;   // lines

out vec4 v_colour;

// shared with cells.frag and debug_view_ramp(): log scale, dark blue -> cyan -> yellow -> dark red
vec3 ramp(float count, float maxc)
{
    float t = clamp(log(1.0 + count) / log(1.0 + max(maxc, 1.0)), 0.0, 1.0);
    return clamp(vec3(1.5) - abs(vec3(4.0 * t) - vec3(3.0, 2.0, 1.0)), 0.0, 1.0); // "jet"
}

void main()
{
    vec2 uv = (a_pos - u_rect.xy) / (u_rect.zw - u_rect.xy);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
    v_colour = u_mode == 0 ? vec4(ramp(a_count, u_max), 1.0) : u_colour;
}
