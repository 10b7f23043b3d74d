/* gl_census.c — live GL objects by kind (see gl_census.h). */
#include "gl_census.h"

#include <glad/gl.h>

gl_census gl_census_take(void)
{
    gl_census c = {0};
    for (GLuint n = 1; n <= GL_CENSUS_MAX_NAME; n++) {
        c.textures += glIsTexture(n) == GL_TRUE;
        c.buffers += glIsBuffer(n) == GL_TRUE;
        c.framebuffers += glIsFramebuffer(n) == GL_TRUE;
        c.renderbuffers += glIsRenderbuffer(n) == GL_TRUE;
        c.vertex_arrays += glIsVertexArray(n) == GL_TRUE;
        c.programs += glIsProgram(n) == GL_TRUE;
        c.shaders += glIsShader(n) == GL_TRUE;
        c.queries += glIsQuery(n) == GL_TRUE;
        c.samplers += glIsSampler(n) == GL_TRUE;
    }
    c.total = c.textures + c.buffers + c.framebuffers + c.renderbuffers + c.vertex_arrays + c.programs +
              c.shaders + c.queries + c.samplers;
    return c;
}
