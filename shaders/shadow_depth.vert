#version 450 core
// shadow_depth.vert — conventional shadow map: the scene from the light (light_matrices' `gl`
// matrix: orthographic box for a directional light, perspective for a spot). Depth only.

layout(location = 0) in vec3 a_pos;
layout(location = 2) in vec2 a_uv; // (0, 0) where the scene has no texture coordinates

uniform mat4 u_light; // world -> light clip

out vec2 v_uv;

void main()
{
    gl_Position = u_light * vec4(a_pos, 1.0);
    v_uv = a_uv;
}
