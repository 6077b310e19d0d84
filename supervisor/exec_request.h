#ifndef CAPWATCH_EXEC_REQUEST_H
#define CAPWATCH_EXEC_REQUEST_H
/* `capwatch exec --request REQUEST.json|-`: run one JSON execution request
 * (schemas/request.schema.json) with the run form's machinery and print one
 * JSON outcome (schemas/outcome.schema.json) on stdout. Returns the exit
 * status the run form would have (125 for an invalid request, with one
 * "capwatch: FILE: FIELD: why" line on stderr). ARGV[0] is "exec". */
struct cw_options;
/* The run form's main (cw_run_main), given by main.c: the request's run
 * is an ordinary run, in a child. */
typedef int (*cw_exec_run_fn)(const struct cw_options *opts);
int cw_exec_request(int argc, char **argv, cw_exec_run_fn run_main);

#endif
