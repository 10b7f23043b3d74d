/* test_key_burst.c — key presses faster than frames, through the window (issue 22, defect 1). A
 * GLFW window (under xvfb-run) gets a burst from xdotool — K four times, P twice, F three times,
 * [ three times — while no frame runs; the events reach the key callback controls_init()
 * installed, and taking the queue once, as the frame loop does between two frames, gives every
 * press in the order typed. (One pending bit per key gave K, P, F and [ once each.)
 * Exit 77 without a display or xdotool. */
#undef NDEBUG
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "controls.h"
#include "test.h"

static const char *const TYPED = "k p k f bracketleft k f p bracketleft k f bracketleft";
static const unsigned WANT[] = {CONTROL_KERNEL,     CONTROL_SCREENSHOT, CONTROL_KERNEL, CONTROL_LOG,
                                CONTROL_SM_SMALLER, CONTROL_KERNEL,     CONTROL_LOG,    CONTROL_SCREENSHOT,
                                CONTROL_SM_SMALLER, CONTROL_KERNEL,     CONTROL_LOG,    CONTROL_SM_SMALLER};
enum { N = sizeof WANT / sizeof WANT[0] };

int main(void)
{
    if (!getenv("DISPLAY")) TEST_SKIP("no display (run under xvfb-run)");
    if (system("command -v xdotool > /dev/null") != 0) TEST_SKIP("no xdotool");
    if (!glfwInit()) TEST_SKIP("glfwInit failed");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API); /* the callbacks need a window, not a context */
    char title[64];
    snprintf(title, sizeof title, "izb-key-burst-%d", (int)getpid());
    GLFWwindow *w = glfwCreateWindow(200, 100, title, NULL, NULL);
    if (!w) TEST_SKIP("no window");
    controls c;
    const float bmin[3] = {-1, -1, -1}, bmax[3] = {1, 1, 1};
    controls_init(&c, w, bmin, bmax);
    for (int i = 0; i < 20; i++) { /* let the window map */
        glfwPollEvents();
        usleep(10000);
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "xdotool search --sync --name '^%s$' windowfocus --sync", title);
    CHECK(system(cmd) == 0, "%s", cmd);
    glfwPollEvents();
    while (controls_next(&c)) /* nothing typed yet */
        ;

    /* the burst: no frame (no controls_next) until every event is in */
    snprintf(cmd, sizeof cmd, "xdotool key --delay 2 %s", TYPED);
    CHECK(system(cmd) == 0, "%s", cmd);
    for (int i = 0; i < 100; i++) { /* the X server has them all: a few polls deliver them */
        glfwPollEvents();
        usleep(10000);
    }

    /* the next frame */
    int count[4] = {0}, in_order = 0, got = 0;
    static const unsigned KINDS[4] = {CONTROL_KERNEL, CONTROL_SCREENSHOT, CONTROL_LOG, CONTROL_SM_SMALLER};
    for (unsigned t; (t = controls_next(&c)) != 0; got++) {
        for (int k = 0; k < 4; k++)
            count[k] += t == KINDS[k];
        in_order += got < N && t == WANT[got];
    }
    CHECK(count[0] == 4, "K pressed 4 times toggles 4 times (got %d)", count[0]);
    CHECK(count[1] == 2, "P pressed twice: two screenshots (got %d)", count[1]);
    CHECK(count[2] == 3, "F pressed 3 times: start, stop, start (got %d)", count[2]);
    CHECK(count[3] == 3, "[ pressed 3 times: 3 steps (got %d)", count[3]);
    CHECK(got == N && in_order == N, "%d presses in the order typed (got %d, %d in place)", N, got, in_order);
    glfwDestroyWindow(w);
    glfwTerminate();
    return test_done();
}
