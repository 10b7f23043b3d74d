/* test_light_list.c — the light list's keys (light_list.h: J next, Insert add, Delete remove) on
 * random sequences of presses against a model (an array of the lights' marks, each light marked by
 * its position and intensity): after every press the count, the picked light and every light's
 * mark and description agree with the model; Insert at IZB_MAX_LIGHTS lights and Delete of the
 * only light refuse and change nothing. Catches an off-by-one in the shift on Delete, a picked
 * index left past the end, a copy of the wrong light, a ninth light. */
#undef NDEBUG
#include <string.h>

#include "light_list.h"
#include "test.h"
#include "test_rng.h"

enum { SEQUENCES = 200, PRESSES = 60 };

int main(void)
{
    int refused_add = 0, refused_remove = 0, max_seen = 0;
    for (int q = 0; q < SEQUENCES; q++) {
        light_list l;
        memset(&l, 0, sizeof l);
        float model[IZB_MAX_LIGHTS];
        int count = 1 + (int)(rnd() * IZB_MAX_LIGHTS), picked = 0, next_mark = 1;
        l.set.count = count;
        for (int i = 0; i < count; i++, next_mark++) {
            model[i] = (float)next_mark;
            l.set.l[i] = (light){.type = (light_type)(i % LIGHT_TYPE_COUNT), .pos = {model[i], 0, 0},
                                 .dir = {0, -model[i], 0}};
            l.set.intensity[i] = model[i];
            l.given[i] = (options_light){.light = l.set.l[i].type, .light_intensity = model[i]};
        }
        for (int k = 0; k < PRESSES; k++) {
            const double u = rnd();
            if (u < 0.3) {
                light_list_next(&l);
                picked = (picked + 1) % count;
            } else if (u < 0.65) {
                const bool ok = light_list_add(&l);
                CHECK(ok == (count < IZB_MAX_LIGHTS), "seq %d: add at %d lights: %d", q, count, ok);
                if (count < IZB_MAX_LIGHTS) {
                    model[count] = model[picked];
                    picked = count++;
                } else {
                    refused_add++;
                }
            } else {
                const bool ok = light_list_remove(&l);
                CHECK(ok == (count > 1), "seq %d: remove at %d lights: %d", q, count, ok);
                if (count > 1) {
                    memmove(&model[picked], &model[picked + 1], (size_t)(count - picked - 1) * sizeof model[0]);
                    count--;
                    if (picked >= count) picked = count - 1;
                } else {
                    refused_remove++;
                }
            }
            max_seen = count > max_seen ? count : max_seen;
            CHECK(l.set.count == count && l.picked == picked, "seq %d press %d: %d lights, %d picked; want %d, %d", q,
                  k, l.set.count, l.picked, count, picked);
            for (int i = 0; i < count && i < l.set.count; i++) {
                CHECK(l.set.l[i].pos[0] == model[i] && l.set.intensity[i] == model[i] &&
                          l.given[i].light_intensity == model[i] && l.given[i].light == l.set.l[i].type,
                      "seq %d press %d: light %d is %g, want %g", q, k, i, (double)l.set.l[i].pos[0],
                      (double)model[i]);
                /* an added light's description is where it is: Home keeps it there */
                if (l.given[i].has_light_pos)
                    CHECK(l.given[i].light_pos[0] == l.set.l[i].pos[0] && l.given[i].light_dir[1] == l.set.l[i].dir[1],
                          "seq %d: light %d's description is not its pose", q, i);
            }
        }
    }
    CHECK(refused_add > 10 && refused_remove > 10 && max_seen == IZB_MAX_LIGHTS,
          "the sequences reached both ends: %d adds and %d removes refused", refused_add, refused_remove);
    return test_done();
}
