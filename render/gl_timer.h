/* gl_timer.h — GPU time of one pass per frame with GL_TIME_ELAPSED queries, double-buffered so
 * reading a result never waits for the frame just submitted: a result is taken as soon as it is
 * available (usually the same frame when the CPU path has already synchronised, else the next).
 * The first frame (frame 0) is measured but never reported: see gl_timer.c.
 */
#ifndef GL_TIMER_H
#define GL_TIMER_H

#include <stdbool.h>

typedef struct gl_timer {
    unsigned query[2];
    bool pending[2]; /* query issued, result not yet read */
    long frame[2];   /* frame number each slot measured */
    long next_frame; /* number of the next begin() */
    float ms;        /* last result read */
    long ms_frame;   /* frame `ms` belongs to; -1 before the first */
} gl_timer;

void gl_timer_init(gl_timer *t);
void gl_timer_destroy(gl_timer *t);
/* Bracket one pass. Not nestable with another GL_TIME_ELAPSED query. */
void gl_timer_begin(gl_timer *t);
void gl_timer_end(gl_timer *t);
/* Read whatever results are ready, without waiting (call late in the frame for same-frame times). */
void gl_timer_poll(gl_timer *t);

#endif
