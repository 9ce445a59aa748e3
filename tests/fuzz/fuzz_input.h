/* fuzz_input.h -- what the fuzz targets whose code under test reads a file
 * share: the input written whole to a path of the target's. */
#ifndef LSIM_TESTS_FUZZ_INPUT_H
#define LSIM_TESTS_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_write_input(const uint8_t *data, size_t size, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
}

#endif
