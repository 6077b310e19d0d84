/* libFuzzer target for the trace reader: `make fuzz-trace` builds it with
 * clang -fsanitize=fuzzer,address and runs it (not part of make check).
 *
 * Each input is a whole trace file. It goes through both readers:
 *   1. line by line through the policy library's reader API, as replay does:
 *      cw_trace_parse_line, cw_trace_header_to_context for the header,
 *      cw_trace_event_to_op + cw_policy_decide for every operation;
 *   2. through the tools' streaming reader and run model (process tree,
 *      capabilities, denials), as explain/diff/export do. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "policy/policy.h"
#include "policy/trace.h"
#include "tools/common.h"

static cw_profile *verify;

static void per_line(const char *data, size_t size)
{
	struct cw_context ctx, empty = { 0 };
	bool have_ctx = false;
	cJSON *hdr = NULL;
	unsigned long lineno = 0;
	size_t off = 0;
	char err[512];

	while (off < size) {
		const char *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) + 1 : size - off;
		cJSON *ev = cw_trace_parse_line(data + off, len, ++lineno, err, sizeof(err));

		off += len;
		if (!ev)
			continue;
		if (!hdr && !have_ctx) {
			hdr = ev;
			if (cw_trace_header_to_context(hdr, &ctx, err, sizeof(err)) == 0)
				have_ctx = true;
			continue;
		}
		{
			struct cw_op op;
			struct cw_op_storage st;
			struct cw_decision d;

			if (cw_trace_event_to_op(ev, &op, &st, err, sizeof(err)) == 0) {
				cw_policy_decide(verify, have_ctx ? &ctx : &empty, &op, &d);
				cw_op_storage_free(&st);
			}
		}
		cJSON_Delete(ev);
	}
	if (have_ctx)
		cw_trace_context_free(&ctx);
	cJSON_Delete(hdr);
}

static int on_header(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct cw_tool_run *r = opaque;

	(void)lineno;
	cJSON_Delete(r->header);
	r->header = cJSON_Duplicate(ev, 1);
	return 0;
}

static int on_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	(void)lineno;
	return cw_tool_run_add(opaque, ev) < 0;
}

static void run_model(const char *data, size_t size)
{
	struct cw_tr_status st;
	struct cw_tool_run run;
	FILE *f;
	size_t i;

	if (!size)
		return;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return;
	cw_tool_run_init(&run, "fuzz");
	cw_tr_read_stream(f, "fuzz", on_header, on_event, &run, &st, true);
	fclose(f);
	cw_tool_run_link(&run);
	/* walk what explain walks */
	for (i = 0; i < run.nprocs; i++)
		(void)cw_tproc_name(&run.procs[i]);
	for (i = 0; i < run.ndenials; i++)
		(void)cw_tool_run_find(&run, run.denials[i].pid);
	cw_tool_run_free(&run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;

	if (!verify && cw_profile_builtin("verify", &verify) < 0)
		abort();
	/* a private copy: the readers must not rely on a NUL after the data */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	per_line(copy, size);
	run_model(copy, size);
	free(copy);
	return 0;
}
