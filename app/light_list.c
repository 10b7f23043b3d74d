/* light_list.c — the light list's keys (light_list.h). */
#include "light_list.h"

#include <string.h>

void light_list_next(light_list *l)
{
    l->picked = (l->picked + 1) % l->set.count;
}

bool light_list_add(light_list *l)
{
    const int n = l->set.count, p = l->picked;
    if (n >= IZB_MAX_LIGHTS) return false;
    options_light o = l->given[p];
    const light *src = &l->set.l[p];
    o.has_light_dir = o.has_light_pos = true; /* where the picked light is now, not where it began */
    memcpy(o.light_dir, src->dir, sizeof o.light_dir);
    memcpy(o.light_pos, src->pos, sizeof o.light_pos);
    l->given[n] = o;
    l->set.l[n] = *src;
    l->set.intensity[n] = l->set.intensity[p];
    l->set.count = n + 1;
    l->picked = n;
    return true;
}

bool light_list_remove(light_list *l)
{
    const int n = l->set.count;
    if (n <= 1) return false;
    for (int i = l->picked; i + 1 < n; i++) {
        l->given[i] = l->given[i + 1];
        l->set.l[i] = l->set.l[i + 1];
        l->set.intensity[i] = l->set.intensity[i + 1];
    }
    l->set.count = n - 1;
    if (l->picked >= n - 1) l->picked = n - 2;
    return true;
}
