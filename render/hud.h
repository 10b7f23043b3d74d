/* hud.h — the text overlay (H): a block of monospace-ish text (stb_easy_font quads) on a
 * translucent panel in the top-left corner, drawn in one call. The vertex buffer is rebuilt only
 * when the text changes (hud_set_text compares), so a HUD refreshed a few times a second costs one
 * small draw per frame. Needs a current GL 4.5 context; every GL object is made at hud_create. */
#ifndef HUD_H
#define HUD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hud hud;

enum { HUD_MAX_CHARS = 4096 }; /* longer text is cut */

/* Compile the program (hud.vert/hud.frag from shader_dir or the embedded copies) and make the
 * buffers. NULL with a one-line reason in err. */
hud *hud_create(const char *shader_dir, char *err, size_t err_size);
void hud_destroy(hud *h);

/* Set the text ('\n' separates lines). Re-uploads the vertices only when it differs from the
 * current text. Returns true when it did. */
bool hud_set_text(hud *h, const char *text);

/* Draw over framebuffer `fbo` (0 = the window) of width x height pixels: alpha-blended, no depth
 * test. Scaled 1x below 600 px of height, 1.5x below 1000, else 2x. */
void hud_draw(hud *h, unsigned fbo, int width, int height);

/* Uploads so far (tests: the text is not rebuilt every frame). */
long hud_uploads(const hud *h);

#endif
