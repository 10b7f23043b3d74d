/* scene_xform.h — internal to scene/: the affine transforms that place an indexed mesh
 * (scene_imesh.h) in the world when it is instanced into the soup (scene_soup.h). */
#ifndef SCENE_XFORM_H
#define SCENE_XFORM_H

/* Affine map p -> m p + t, m column-major (columns: images of the local x, y, z axes).
 * det(m) must be positive, so winding and outward normals survive. */
typedef struct xform {
    float m[9];
    float t[3];
} xform;

/* uniform scale, then a move to c */
xform xform_translate_scale(const float c[3], float scale);
/* box with centre c and half-extents (hx, hy, hz), rotated by yaw about y then pitch about the
 * box's own x axis (degrees) */
xform xform_box(const float c[3], float hx, float hy, float hz, float yaw_deg, float tilt_deg);
/* unit tube (imesh_tube) onto the segment p0 -> p1 with the given radius */
xform xform_segment(const float p0[3], const float p1[3], float radius);

#endif
