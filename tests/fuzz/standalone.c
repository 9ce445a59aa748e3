/* standalone.c -- runs fuzz targets on given files without libFuzzer, so
 * that every input a fuzzer once broke on stays a test (make test runs the
 * regression corpus through each target). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        uint8_t *buf = NULL;
        size_t size = 0, cap = 0, got;
        uint8_t chunk[65536];
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            if (size + got > cap) {
                cap = (size + got) * 2;
                buf = realloc(buf, cap);
                if (!buf)
                    return 1;
            }
            for (size_t k = 0; k < got; k++)
                buf[size + k] = chunk[k];
            size += got;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", size);
        free(buf);
    }
    printf("%d inputs\n", argc - 1);
    return 0;
}
