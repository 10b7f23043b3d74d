#version 450 core
// depth.frag — writes the linear view depth (distance along the camera's -Z) into the R32F
// colour target. The target is cleared to 0, which means sky (core/izb_math.h conventions).

in float v_depth;

layout(location = 0) out float o_depth;

void main()
{
    o_depth = v_depth;
}
