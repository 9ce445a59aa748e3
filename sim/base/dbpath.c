/* dbpath.c -- whether SQLite can open a database at a path (dbpath.h). */
#define _XOPEN_SOURCE 700          /* realpath */
#include "base/dbpath.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What sqlite3PagerOpen keeps past the path for the journal's name. */
#define JOURNAL_SUFFIX 8

int dbpath_max(void)
{
    sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
    return vfs ? vfs->mxPathname - JOURNAL_SUFFIX : 0;
}

size_t dbpath_too_long(const char *path)
{
    int max = dbpath_max();
    char *full = realpath(path, NULL);
    size_t n = full ? strlen(full) : errno == ENAMETOOLONG ? strlen(path) : 0;
    free(full);
    return max > 0 && n > (size_t)max ? n : 0;
}

int dbpath_check(const char *path, char *why, size_t size)
{
    size_t n = dbpath_too_long(path);
    if (!n)
        return 0;
    snprintf(why, size, "cannot open: SQLite opens no database whose full path is over %d bytes "
             "(this one's is %zu): move it to a shorter folder", dbpath_max(), n);
    return -1;
}
