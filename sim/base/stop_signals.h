/* stop_signals.h -- the signals that stop a command as Ctrl-C does.
 *
 * SIGINT and SIGTERM, and the others whose default would kill lsim with
 * its temporary files left behind: SIGHUP (a closed terminal), SIGPIPE (a
 * reader that went away: `lsim run --trace /dev/stdout | head -1`),
 * SIGUSR1, SIGUSR2 and SIGALRM (sent by schedulers and scripts).  Each is
 * caught (cli.c) and handled as SIGTERM is: a message, exit status 1,
 * nothing half-written.
 */
#ifndef LSIM_SIM_STOP_SIGNALS_H
#define LSIM_SIM_STOP_SIGNALS_H

#include <signal.h>

/* Adds every stop signal to `set`. */
void stop_signals_add(sigset_t *set);
/* Sets `handler` for every stop signal (SIG_DFL in a sweep's workers). */
void stop_signals_handle(void (*handler)(int));
/* "SIGINT", "SIGPIPE", ...; "a signal" for any other. */
const char *stop_signal_name(int sig);

#endif
