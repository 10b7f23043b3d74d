/* gl_context.c — GL 4.5 core context creation: GLFW window or headless EGL (device platform,
 * surfaceless), GLAD loading, optional KHR_debug output. */
#include "gl_context.h"

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/egl.h>
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

/* one-line message into err */
static void set_err(char *err, size_t n, const char *fmt, ...);
/* headless: EGL device (or Mesa surfaceless) display + 4.5 core context, no surface */
static bool egl_init(gl_context *ctx, bool debug, char *err, size_t n);
/* try one EGL display: initialise, create the context, make it current */
static bool egl_try_display(gl_context *ctx, EGLDisplay dpy, bool debug, char *why, size_t n);
/* windowed: GLFW window with a 4.5 core context */
static bool glfw_init(gl_context *ctx, const gl_context_desc *d, char *err, size_t n);
/* load GL through `load` and check the version */
static bool load_gl(GLADloadfunc load, char *why, size_t n);
static void GLAD_API_PTR debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity,
                                        GLsizei length, const GLchar *message, const void *user);
static void glfw_error_callback(int code, const char *desc);
/* mark every loaded shared object RTLD_NODELETE (see keep_loaded) */
static int keep_one(struct dl_phdr_info *info, size_t size, void *data);
static void keep_loaded(void);

static char glfw_last_error[256];

static void set_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || n == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static bool load_gl(GLADloadfunc load, char *why, size_t n)
{
    int version = gladLoadGL(load);
    if (!version) {
        set_err(why, n, "cannot load the GL entry points");
        return false;
    }
    if (!GLAD_GL_VERSION_4_5) {
        set_err(why, n, "the driver gives OpenGL %d.%d", GLAD_VERSION_MAJOR(version),
                GLAD_VERSION_MINOR(version));
        return false;
    }
    return true;
}

static bool egl_try_display(gl_context *ctx, EGLDisplay dpy, bool debug, char *why, size_t n)
{
    EGLint major = 0, minor = 0;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
        set_err(why, n, "eglInitialize failed");
        return false;
    }
    gladLoaderLoadEGL(dpy); /* now with the display's extensions */
    if (!GLAD_EGL_KHR_surfaceless_context || !eglBindAPI(EGL_OPENGL_API)) {
        set_err(why, n, "EGL %d.%d display without desktop GL or surfaceless contexts", major, minor);
        eglTerminate(dpy);
        return false;
    }
    /* no surface is ever made: any surface type will do */
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = NULL;
    EGLint count = 0;
    if (!eglChooseConfig(dpy, config_attribs, &config, 1, &count) || count < 1) {
        if (!GLAD_EGL_KHR_no_config_context) {
            set_err(why, n, "no EGL config for desktop OpenGL");
            eglTerminate(dpy);
            return false;
        }
        config = EGL_NO_CONFIG_KHR;
    }
    const EGLint context_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION,
        4,
        EGL_CONTEXT_MINOR_VERSION,
        5,
        EGL_CONTEXT_OPENGL_PROFILE_MASK,
        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
        EGL_CONTEXT_OPENGL_DEBUG,
        debug ? EGL_TRUE : EGL_FALSE,
        EGL_NONE,
    };
    EGLContext glc = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
    if (glc == EGL_NO_CONTEXT) {
        set_err(why, n, "eglCreateContext(4.5 core) failed (0x%x)", (unsigned)eglGetError());
        eglTerminate(dpy);
        return false;
    }
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, glc) ||
        !load_gl((GLADloadfunc)eglGetProcAddress, why, n)) {
        if (why[0] == '\0') set_err(why, n, "eglMakeCurrent failed");
        eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(dpy, glc);
        eglTerminate(dpy);
        return false;
    }
    ctx->egl_display = dpy;
    ctx->egl_context = glc;
    return true;
}

static bool egl_init(gl_context *ctx, bool debug, char *err, size_t n)
{
    char why[160] = "no EGL device";
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
        set_err(err, n, "no OpenGL 4.5 core context: cannot load libEGL");
        return false;
    }
    if (glad_eglQueryDevicesEXT && glad_eglGetPlatformDisplayEXT) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        /* hardware devices first: where a GPU and Mesa's software device are both listed, the
         * GPU's context is the one CUDA-GL interop can share */
        if (eglQueryDevicesEXT(16, devices, &count)) {
            for (int pass = 0; pass < 2; pass++) {
                for (EGLint i = 0; i < count; i++) {
                    const char *ext = glad_eglQueryDeviceStringEXT
                                          ? eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS)
                                          : NULL;
                    bool software = ext && strstr(ext, "EGL_MESA_device_software");
                    if (software != (pass == 1)) continue;
                    why[0] = '\0';
                    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                    if (egl_try_display(ctx, dpy, debug, why, sizeof why)) return true;
                }
            }
        }
        /* Mesa without a usable device: its surfaceless platform still gives llvmpipe */
        if (GLAD_EGL_MESA_platform_surfaceless) {
            why[0] = '\0';
            EGLDisplay dpy =
                eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
            if (egl_try_display(ctx, dpy, debug, why, sizeof why)) return true;
        }
    }
    set_err(err, n, "no OpenGL 4.5 core context: headless EGL: %s", why);
    gladLoaderUnloadEGL();
    return false;
}

static void glfw_error_callback(int code, const char *desc)
{
    (void)code;
    snprintf(glfw_last_error, sizeof glfw_last_error, "%s", desc ? desc : "unknown error");
}

static bool glfw_init(gl_context *ctx, const gl_context_desc *d, char *err, size_t n)
{
    glfwSetErrorCallback(glfw_error_callback);
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((!x || !*x) && (!wl || !*wl)) {
        set_err(err, n, "no display: run with --headless");
        return false;
    }
    if (!glfwInit()) {
        set_err(err, n, "no display: run with --headless (glfw: %s)", glfw_last_error);
        return false;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, d->debug ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_DEPTH_BITS, 0); /* all passes render into FBOs; the window only gets a blit */
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    GLFWwindow *w = glfwCreateWindow(d->width, d->height, d->title, NULL, NULL);
    if (!w) {
        set_err(err, n, "no OpenGL 4.5 core context: %s", glfw_last_error);
        glfwTerminate();
        return false;
    }
    glfwMakeContextCurrent(w);
    char why[160] = "";
    if (!load_gl((GLADloadfunc)glfwGetProcAddress, why, sizeof why)) {
        set_err(err, n, "no OpenGL 4.5 core context: %s", why);
        glfwDestroyWindow(w);
        glfwTerminate();
        return false;
    }
    ctx->window = w;
    glfwGetFramebufferSize(w, &ctx->fb_width, &ctx->fb_height);
    return true;
}

static void GLAD_API_PTR debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity,
                                        GLsizei length, const GLchar *message, const void *user)
{
    (void)id;
    (void)length;
    (void)user;
    /* compile/link logs are printed with the file name by gl_shader.c */
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION || source == GL_DEBUG_SOURCE_SHADER_COMPILER) return;
    const char *kind = type == GL_DEBUG_TYPE_ERROR         ? "error"
                       : type == GL_DEBUG_TYPE_PERFORMANCE ? "performance"
                                                           : "message";
    fprintf(stderr, "gl %s: %s\n", kind, message);
}

static int keep_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name && info->dlpi_name[0]) {
        void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
        if (h) dlclose(h);
    }
    return 0;
}

/* The GL driver libraries (glvnd vendor, Mesa DRI) are dlclose'd before LeakSanitizer scans the
 * heap at exit; the blocks their globals pointed to then look leaked (Mesa 22.3 keeps driconf
 * strings and a screen for the process lifetime). Keeping every loaded object mapped keeps those
 * blocks reachable, so a sanitizer run reports only real leaks. */
static void keep_loaded(void)
{
    dl_iterate_phdr(keep_one, NULL);
}

bool gl_context_init(gl_context *ctx, const gl_context_desc *desc, char *err, size_t err_size)
{
    gl_context_desc d = desc ? *desc : (gl_context_desc){0};
    if (d.width <= 0) d.width = 1280;
    if (d.height <= 0) d.height = 720;
    if (!d.title) d.title = "izb-shadows";
    memset(ctx, 0, sizeof *ctx);
    ctx->headless = d.headless;
    if (d.headless ? !egl_init(ctx, d.debug, err, err_size) : !glfw_init(ctx, &d, err, err_size))
        return false;
    gl_context_set_vsync(ctx, d.vsync);
    snprintf(ctx->renderer, sizeof ctx->renderer, "%s", (const char *)glGetString(GL_RENDERER));
    keep_loaded();
    if (d.debug && GLAD_GL_KHR_debug) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(debug_callback, NULL);
    }
    return true;
}

void gl_context_shutdown(gl_context *ctx)
{
    if (ctx->window) {
        glfwDestroyWindow(ctx->window);
        glfwTerminate();
    } else if (ctx->egl_display) {
        eglMakeCurrent(ctx->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(ctx->egl_display, ctx->egl_context);
        eglTerminate(ctx->egl_display);
        eglReleaseThread();
        gladLoaderUnloadEGL();
    }
    memset(ctx, 0, sizeof *ctx);
}

void gl_context_poll(gl_context *ctx)
{
    if (!ctx->window) return;
    glfwPollEvents();
    glfwGetFramebufferSize(ctx->window, &ctx->fb_width, &ctx->fb_height);
}

bool gl_context_should_close(const gl_context *ctx)
{
    return ctx->window && glfwWindowShouldClose(ctx->window);
}

void gl_context_swap(gl_context *ctx)
{
    if (ctx->window) glfwSwapBuffers(ctx->window);
}

void gl_context_wait(gl_context *ctx, double seconds)
{
    if (ctx->window)
        glfwWaitEventsTimeout(seconds);
}

void gl_context_finish(gl_context *ctx)
{
    (void)ctx;
    glFinish();
}

void gl_context_set_vsync(gl_context *ctx, bool on)
{
    ctx->vsync = on;
    if (ctx->window) glfwSwapInterval(on ? 1 : 0);
}

void gl_context_set_title(gl_context *ctx, const char *title)
{
    if (ctx->window) glfwSetWindowTitle(ctx->window, title);
}
