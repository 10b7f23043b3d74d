/* light_list.h — the demo's lights (view.h light_set) and the keys that edit the list: J picks the
 * next light (the one L steers, T, - = N change), Insert adds a copy of the picked light and picks
 * it, Delete removes the picked light. Each light is kept twice: as the command line described it
 * (options_light: what Home and T rebuild it from, with the scene's defaults) and as drawn. */
#ifndef LIGHT_LIST_H
#define LIGHT_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"
#include "view.h"

typedef struct light_list {
    options_light given[IZB_MAX_LIGHTS]; /* given[i] describes set.l[i] */
    light_set set;                       /* as drawn; set.count lights, 1 .. IZB_MAX_LIGHTS */
    int picked;                          /* 0 .. set.count - 1 */
} light_list;

/* J: the next light, after the last the first. */
void light_list_next(light_list *l);
/* Insert: a copy of the picked light as it is now (its given pose becomes where it is, so Home
 * keeps it there), appended and picked. False, nothing changed, when there are IZB_MAX_LIGHTS. */
bool light_list_add(light_list *l);
/* Delete: remove the picked light; the one after it (or the new last) is picked. False, nothing
 * changed, when it is the only light. */
bool light_list_remove(light_list *l);

#endif
