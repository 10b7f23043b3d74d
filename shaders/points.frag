#version 450 core
// points.frag — the colour points.vert chose (points opaque, lines blended).

in vec4 v_colour;

layout(location = 0) out vec4 o_colour;

void main()
{
    o_colour = v_colour;
}
