/* cub/device/device_scan.cuh (SIMT emulator): host versions of the CUB calls the project
 * uses, enforcing CUB's documented contracts (simt_cub.h). */
#include "../../../simt_cub.h"
