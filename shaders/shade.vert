#version 450 core
// shade.vert — camera shading pass over the scene geometry. gl_Position must match depth.vert
// bit for bit (same expression, `invariant`): the pass tests GL_LEQUAL against its depth.

layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv; // (0, 0) where the scene has no texture coordinates

uniform mat4 u_view;
uniform mat4 u_proj;

out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;

invariant gl_Position;

void main()
{
    vec4 p = u_view * vec4(a_pos, 1.0);
    v_world = a_pos;
    v_normal = a_normal;
    v_uv = a_uv;
    gl_Position = u_proj * p;
}
