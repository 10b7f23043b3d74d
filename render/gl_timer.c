/* gl_timer.c — double-buffered GL_TIME_ELAPSED queries. */
#include "gl_timer.h"

#include <glad/gl.h>

/* read slot i's result into t->ms; wait only when `wait` */
static void collect(gl_timer *t, int i, bool wait);

void gl_timer_init(gl_timer *t)
{
    *t = (gl_timer){.ms_frame = -1};
    glCreateQueries(GL_TIME_ELAPSED, 2, t->query);
}

void gl_timer_destroy(gl_timer *t)
{
    glDeleteQueries(2, t->query);
    *t = (gl_timer){.ms_frame = -1};
}

static void collect(gl_timer *t, int i, bool wait)
{
    if (!t->pending[i]) return;
    GLint avail = 0;
    if (!wait) {
        glGetQueryObjectiv(t->query[i], GL_QUERY_RESULT_AVAILABLE, &avail);
        if (!avail) return;
    }
    GLuint64 ns = 0;
    glGetQueryObjectui64v(t->query[i], GL_QUERY_RESULT, &ns);
    t->pending[i] = false;
    /* The first frame is not reported: it pays for lazy shader compilation, and Mesa llvmpipe
     * (22.3) reports its GL_TIME_ELAPSED as the time since boot. */
    if (t->frame[i] > t->ms_frame && t->frame[i] > 0) {
        t->ms = (float)((double)ns * 1e-6);
        t->ms_frame = t->frame[i];
    }
}

void gl_timer_begin(gl_timer *t)
{
    int i = (int)(t->next_frame & 1);
    collect(t, i ^ 1, false); /* last frame's, if it is done */
    collect(t, i, true);      /* two frames ago: done long since, must be read before reuse */
    t->frame[i] = t->next_frame++;
    glBeginQuery(GL_TIME_ELAPSED, t->query[i]);
}

void gl_timer_end(gl_timer *t)
{
    int i = (int)((t->next_frame - 1) & 1);
    glEndQuery(GL_TIME_ELAPSED);
    t->pending[i] = true;
    collect(t, i, false);
}

void gl_timer_poll(gl_timer *t)
{
    int cur = (int)((t->next_frame - 1) & 1);
    collect(t, cur ^ 1, false);
    collect(t, cur, false);
}
