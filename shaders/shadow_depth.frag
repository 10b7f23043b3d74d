#version 450 core
// shadow_depth.frag — nothing to write: the shadow map is the depth attachment (slope-scaled
// bias comes from glPolygonOffset in render/shadow_map.c). Cut-outs: a fragment alpha_test.frag's
// rule cuts away is discarded, so a leaf card casts a leaf in the map too. The scene is one draw
// from triangle 0: gl_PrimitiveID is the scene index.

in vec2 v_uv;

bool alpha_cut(uint tri, vec2 uv); // alpha_test.frag

void main()
{
    if (alpha_cut(uint(gl_PrimitiveID), v_uv)) discard;
}
