/* stop_signals.c -- the signals that stop a command, and the flag they set
 * (stop_signals.h). */
#include "base/stop_signals.h"

#include <string.h>

static const struct {
    int sig;
    const char *name;
} stops[] = {
    { SIGINT, "SIGINT" },   { SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },  { SIGPIPE, "SIGPIPE" },
    { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" }, { SIGALRM, "SIGALRM" },
};

#define NSTOPS (sizeof stops / sizeof stops[0])

void stop_signals_add(sigset_t *set)
{
    for (size_t i = 0; i < NSTOPS; i++)
        sigaddset(set, stops[i].sig);
}

void stop_signals_handle(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOPS; i++)
        sigaction(stops[i].sig, &sa, NULL);
}

const char *stop_signal_name(int sig)
{
    for (size_t i = 0; i < NSTOPS; i++)
        if (stops[i].sig == sig)
            return stops[i].name;
    return "a signal";
}

/* The one piece of process-wide state: a signal handler can do no more
 * than set a flag, which the runs of this process poll. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

void stop_catch_signals(void)
{
    stop_signals_handle(on_signal);
    /* Past a file size limit a write should fail (and be reported, with the
     * temporary files removed), not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
}

volatile const sig_atomic_t *stop_interrupted(void)
{
    return &interrupted;
}

int stop_query_on_signal(void *flag)
{
    return flag && *(volatile const sig_atomic_t *)flag;
}
