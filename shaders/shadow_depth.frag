#version 450 core
// shadow_depth.frag — nothing to write: the shadow map is the depth attachment (slope-scaled
// bias comes from glPolygonOffset in render/shadow_map.c).

void main()
{
}
