/* The run's state of the exec, process, ioctl and network handlers and of
 * resolve.c (scratch.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "supervisor/handlers/scratch.h"
#include "supervisor/handlers/net_impl.h"
#include "supervisor/resolve.h"
#include "supervisor/state.h"

int cw_handlers_init(struct cw_run *run)
{
	run->call_scratch = calloc(1, sizeof(*run->call_scratch));
	if (!run->call_scratch)
		return -ENOMEM;
	run->call_scratch->net.held_sock = -1;
	run->call_scratch->sig_dup = -1;
	cw_net_signals_init();
	int e = cw_net_state_new(&run->net_state);
	if (e == 0)
		e = cw_resolve_links_new(&run->links);
	return e;
}

void cw_handlers_free(struct cw_run *run)
{
	free(run->call_scratch);
	run->call_scratch = NULL;
	cw_net_state_free(run->net_state);
	run->net_state = NULL;
	cw_resolve_links_free(run->links);
	run->links = NULL;
}
