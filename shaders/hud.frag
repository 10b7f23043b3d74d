#version 450 core
// hud.frag — flat colour with alpha (the panel is translucent, the text opaque).

in vec4 v_colour;

layout(location = 0) out vec4 o_colour;

void main()
{
    o_colour = v_colour;
}
