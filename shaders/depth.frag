#version 450 core
// depth.frag — writes the linear view depth (distance along the camera's -Z) into the R32F
// colour target. The target is cleared to 0, which means sky (core/izb_math.h conventions).
// o_id: the primitive id (izb_shade_arrays_ids' ids) into the R32UI attachment, cleared to
// 0xffffffff (IZB_NO_ID) for sky. The scene is drawn in izb_set_scene's triangle order, in draws
// whose first triangle is u_first (render.c render_draw_triangles: the added ground is a draw of its
// own), so u_first + gl_PrimitiveID, which counts from 0 in each draw, is the triangle's scene index.

// Cut-outs: a fragment alpha_test.frag's rule cuts away is discarded (no depth, no id), so the IZB
// reconstructs the surface behind it.

in float v_depth;
in vec2 v_uv;

uniform uint u_first;

bool alpha_cut(uint tri, vec2 uv); // alpha_test.frag

layout(location = 0) out float o_depth;
layout(location = 1) out uint o_id;

void main()
{
    uint tri = u_first + uint(gl_PrimitiveID);
    if (alpha_cut(tri, v_uv)) discard;
    o_depth = v_depth;
    o_id = tri;
}
