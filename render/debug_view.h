/* debug_view.h — the IZB's intermediate data as pictures (thesis figures 5.12/5.13 a and b):
 *   RENDER_VIEW_POINTS: the frame's sample points on the light's image plane (GL_POINTS, one per
 *     covered pixel), coloured by the point count of their grid cell (blue sparse -> red crowded,
 *     log scale), with the points' bbox (yellow) and the grid lines (grey; every k-th line when
 *     cells are under 4 px on screen);
 *   RENDER_VIEW_CELLS: the cell-occupancy heat map, a grid_w x grid_h texture stretched over the
 *     screen (dark = empty cell, same colour scale).
 * Both read izb_get_debug() after the IZB stage and draw into the renderer's colour target,
 * replacing the shaded image. Buffers: a point buffer of width*height points (made on first use
 * and when the target size changes) and a 1024x1024 cell texture made at create. */
#ifndef DEBUG_VIEW_H
#define DEBUG_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "izb.h"
#include "render.h"

typedef struct debug_view debug_view;

/* Compile points.vert/points.frag and fullscreen.vert/cells.frag. NULL with a reason in err. */
debug_view *debug_view_create(const char *shader_dir, char *err, size_t err_size);
void debug_view_destroy(debug_view *d);

/* Draw `view` (RENDER_VIEW_POINTS or RENDER_VIEW_CELLS) for backend b's last frame into r's
 * colour target. False (the target is cleared to dark red) when the backend kept no debug data. */
bool debug_view_draw(debug_view *d, render *r, izb_backend *b, render_view view);

/* Occupancy of the last drawn frame: points, non-empty cells, the fullest cell. */
typedef struct debug_view_stats {
    int points, cells, occupied, max_count;
} debug_view_stats;
debug_view_stats debug_view_last(const debug_view *d);

/* The colour both views give a cell with `count` points when the fullest has `max_count` (RGB in
 * 0..1); the shaders compute the same ramp. */
void debug_view_ramp(int count, int max_count, float rgb[3]);

#endif
