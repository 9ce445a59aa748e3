/* version.c -- a version as a number (version.h). */
#include "core/version.h"

bool version_parse(const char *s, int *out)
{
    int part[3] = { 0, 0, 0 }, n = 0;
    const char *p = s;
    while (n < 3) {
        if (*p < '0' || *p > '9')
            return false;
        int v = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (*p++ - '0');
            if (v > 99)
                return false;
        }
        part[n++] = v;
        if (*p != '.')
            break;
        p++;
    }
    if (*p || n < 2)
        return false;
    *out = VERSION_NUMBER(part[0], part[1], part[2]);
    return true;
}
