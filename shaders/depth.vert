#version 450 core
// depth.vert — camera depth pass: world position -> clip, and the linear view depth for depth.frag.
// shade.vert computes gl_Position with the same expression (both `invariant`), so the shading
// pass covers exactly the pixels this pass wrote and can depth-test GL_LEQUAL against them.

layout(location = 0) in vec3 a_pos;

uniform mat4 u_view;
uniform mat4 u_proj;

out float v_depth;

invariant gl_Position;

void main()
{
    vec4 p = u_view * vec4(a_pos, 1.0);
    // -z_view is affine in view space, so the perspective-correct interpolation is exact: the
    // depth at a pixel centre is the depth of the surface point under it, in float32.
    v_depth = -p.z;
    gl_Position = u_proj * p;
}
