/* cli.h -- the command line (see cli.c for the commands). */
#ifndef LSIM_SIM_CLI_H
#define LSIM_SIM_CLI_H

#define CLI_OK       0
#define CLI_FAILURE  1             /* I/O failure while running */
#define CLI_USAGE    2             /* bad usage or bad input */
#define CLI_OUTSIDE  3             /* compare: outside a tolerance */

int cli_main(int argc, char **argv);

#endif
