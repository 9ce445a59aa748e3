/* dbpath.h -- whether SQLite can open a database at a path.
 *
 * SQLite's unix files take a full path (links resolved) of at most the
 * VFS's mxPathname bytes, 512, less the 8 its pager keeps for "-journal"
 * whatever the journal mode: 504.  Past it SQLite says only "unable to
 * open database file", so lsim checks first and says why.
 */
#ifndef LSIM_SIM_DBPATH_H
#define LSIM_SIM_DBPATH_H

#include <stddef.h>

/* The longest full path SQLite opens a database at. */
int dbpath_max(void);
/* The full path's length when it is longer than that, else 0 (0 too when
 * the path cannot be resolved: SQLite's own message then says why). */
size_t dbpath_too_long(const char *path);
/* For a database to read: 0 when its path is short enough, else -1 with
 * "cannot open: SQLite opens no database whose full path is over 504 bytes
 * (this one's is N): move it to a shorter folder" in why. */
int dbpath_check(const char *path, char *why, size_t size);

#endif
