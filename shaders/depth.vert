#version 450 core
// depth.vert — camera depth pass: world position -> clip, and the linear view depth for depth.frag.
// shade.vert computes gl_Position with the same expression (both `invariant`), so the shading
// pass covers exactly the pixels this pass wrote and can depth-test GL_LEQUAL against them.

layout(location = 0) in vec3 a_pos;
layout(location = 2) in vec2 a_uv; // (0, 0) where the scene has no texture coordinates

uniform mat4 u_view;
uniform mat4 u_proj;

out float v_depth;
out vec2 v_uv;

invariant gl_Position;

void main()
{
    vec4 p = u_view * vec4(a_pos, 1.0);
    // -z_view is affine in view space, so the perspective-correct interpolation is exact: the
    // depth at a pixel centre is the depth of the surface point under it, in float32.
    v_depth = -p.z;
    v_uv = a_uv;
    gl_Position = u_proj * p;
}
