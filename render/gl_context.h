/* gl_context.h — the OpenGL 4.5 core context: a GLFW window, or headless EGL with no surface
 * (EGL device platform: Mesa llvmpipe without a display, the NVIDIA driver on NVIDIA machines).
 * Loads the GL entry points (GLAD) into the process; one context per process.
 */
#ifndef GL_CONTEXT_H
#define GL_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

struct GLFWwindow;

/* Defaults (zero fields): 1280x720 window, title "izb-shadows", vsync off, windowed, no debug
 * output. Headless contexts have no default framebuffer: render into FBOs. */
typedef struct gl_context_desc {
    int width, height; /* window size in screen coordinates (headless: unused) */
    const char *title;
    bool headless;
    bool vsync;
    bool debug; /* debug context + KHR_debug message callback printing to stderr */
} gl_context_desc;

typedef struct gl_context {
    bool headless;
    bool vsync;
    struct GLFWwindow *window; /* NULL when headless */
    void *egl_display;         /* EGLDisplay, headless only */
    void *egl_context;         /* EGLContext, headless only */
    int fb_width, fb_height;   /* window framebuffer size in pixels (0x0 when minimised) */
    char renderer[128];        /* GL_RENDERER, for logs */
} gl_context;

/* Create the context and make it current. On failure returns false with a one-line reason in
 * err ("no display: run with --headless", "no OpenGL 4.5 core context: ..."). */
bool gl_context_init(gl_context *ctx, const gl_context_desc *desc, char *err, size_t err_size);
void gl_context_shutdown(gl_context *ctx);

/* Window: process events and refresh fb_width/fb_height. Headless: nothing. */
void gl_context_poll(gl_context *ctx);
/* Window: close button pressed (or glfwSetWindowShouldClose). Headless: false. */
bool gl_context_should_close(const gl_context *ctx);
void gl_context_swap(gl_context *ctx);
/* Window: sleep until an event arrives or `seconds` pass (a minimised window). Headless: nothing. */
void gl_context_wait(gl_context *ctx, double seconds);
/* Wait until the GPU has finished everything submitted (headless frames end here, as a swap would). */
void gl_context_finish(gl_context *ctx);
void gl_context_set_vsync(gl_context *ctx, bool on);
void gl_context_set_title(gl_context *ctx, const char *title);

#endif
