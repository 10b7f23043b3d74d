/* gl_census.h — counts of the live GL objects of each kind, for leak checks (scripts/soak): a count
 * that keeps growing while the program cycles through the same states is a leak. */
#ifndef GL_CENSUS_H
#define GL_CENSUS_H

typedef struct gl_census {
    int textures, buffers, framebuffers, renderbuffers, vertex_arrays, programs, shaders, queries, samplers;
    int total;
} gl_census;

/* Names 1 .. GL_CENSUS_MAX_NAME of each kind that glIs* reports live. GL hands out small names and
 * reuses freed ones, so a leak pushes the count up within this range long before it runs past it.
 * Needs a current context; a few thousand calls, so per switch of a soak run, not per frame. */
#define GL_CENSUS_MAX_NAME 4096
gl_census gl_census_take(void);

#endif
