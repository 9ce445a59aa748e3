/* fuzz_spring.c -- the Spring file reader: .properties or .yml bytes (the
 * first byte chooses) into properties, every placeholder resolved and every
 * value tried as a Boot duration.  Whatever the bytes, no crash, no leak,
 * and a rejected input always says where. */
#include <stdint.h>
#include <stdlib.h>

#include "engine/sim.h"
#include "spring_boot/spring_props.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *name = data[0] & 1 ? "application.yml" : "application.properties";
    static const char *const profiles[] = { "prod", "eu" };
    spring_env e = { 0 };
    sim_diag d = { 0 };
    int rc = spring_env_read_text(&e, name, (const char *)data + 1, size - 1, profiles,
                                  (data[0] & 2) ? 2 : 0, &d);
    for (size_t i = 0; rc == SIM_OK && i < e.n; i++) {
        char *v = NULL;
        sim_diag pd = { 0 };
        if (spring_env_resolve(&e, &e.v[i], false, &v, &pd) == SIM_OK) {
            int64_t ns;
            bool bare;
            spring_parse_duration(v, &ns, &bare);
        } else if (!pd.msg[0]) {
            abort();
        }
        free(v);
        (void)spring_env_find(&e, e.v[i].name);
    }
    if (d.is_set && (!d.msg[0] || d.line < 0))
        abort();
    spring_env_free(&e);
    return 0;
}
