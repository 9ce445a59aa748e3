/* fuzz_plot.c -- a database into `lsim plot`: the bytes become FILE.db and
 * each kind of picture is drawn from it.  Whatever the bytes, no crash, a
 * refusal says why, and a picture drawn is a complete document (the text
 * escaped: no '<' inside a text element that did not come from us). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "report/plot.h"
#include "report/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/lsim-fuzz-plot-%ld.db", (long)getpid());
    fuzz_write_input(data, size, path);
    int (*const kinds[])(plot_src *, svg *) = { plot_timeline, plot_gantt, plot_groups };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        plot_src p;
        svg s = { 0 };
        int rc = plot_open(&p, path, 0);
        if (rc == SIM_OK)
            rc = kinds[k](&p, &s);
        if (rc != SIM_OK && !p.err[0])
            abort();               /* refused without a reason */
        if (rc == SIM_OK) {
            char *text = svg_finish(&s);
            size_t len = strlen(text);
            if (len < 7 || strcmp(text + len - 7, "</svg>\n") != 0)
                abort();
            free(text);
        } else {
            svg_free(&s);
        }
        plot_close(&p);
    }
    unlink(path);
    return 0;
}
