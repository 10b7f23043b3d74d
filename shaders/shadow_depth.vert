#version 450 core
// shadow_depth.vert — conventional shadow map: the scene from the light (light_matrices' `gl`
// matrix: orthographic box for a directional light, perspective for a spot). Depth only.

layout(location = 0) in vec3 a_pos;

uniform mat4 u_light; // world -> light clip

void main()
{
    gl_Position = u_light * vec4(a_pos, 1.0);
}
