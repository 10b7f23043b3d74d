/* placeholder: being written */
#include "izb_cuda.h"
#include <stdio.h>
extern "C" izb_backend *izb_cuda_create(const izb_desc *desc) { (void)desc; fprintf(stderr, "izb: CUDA backend not built yet\n"); return NULL; }
