/* stop_signals.h -- the signals that stop a command as Ctrl-C does.
 *
 * SIGINT and SIGTERM, and the others whose default would kill lsim with
 * its temporary files left behind: SIGHUP (a closed terminal), SIGPIPE (a
 * reader that went away: `lsim run --trace /dev/stdout | head -1`),
 * SIGUSR1, SIGUSR2 and SIGALRM (sent by schedulers and scripts).  Each is
 * caught (stop_catch_signals) and handled as SIGTERM is: a message, exit status 1,
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

/* SIGINT, SIGTERM and the other stop signals set a flag that runs poll
 * (run_spec.interrupted): an interrupted run stops, removes its temporary
 * files and fails.  The command line catches them (cli_main); what runs
 * below it (analysis, sweeps, plots) only reads the flag. */
void stop_catch_signals(void);
volatile const sig_atomic_t *stop_interrupted(void);
/* An SQLite progress handler: with flag = stop_interrupted(), a signal stops
 * the query (SQLITE_INTERRUPT). */
int stop_query_on_signal(void *flag);

#endif
