#!/usr/bin/env python3
"""Assertions over capwatch reports and traces, for the integration tests.

usage:
  cwcheck.py report FILE EXPR...   every EXPR (python) must be true over the report
  cwcheck.py trace FILE EXPR...    every EXPR must be true over the trace
  cwcheck.py snapshot DIR          print a listing of DIR (path, mode, owner, size, mtime, sha256)

Names usable in report expressions:
  d            the report document
  outcome      d["outcome"]
  denial       d["outcome"].get("denial") or {}
  denials(cap=None, scope=None)     entries of d["denials"] that match
  used(cap=None, scope=None)        entries of d["capabilitiesUsed"] that match
  procs(exe=None)                   entries of d["processes"] (exe matched on basename)
  changes(kind=None, path=None)     entries of outcome["changes"] (or d["changes"])
  spawned(prog)                     PROG's basename appears as process_spawn scope or process exe
  text         the report as JSON text (to look for a recorded string anywhere)
Names usable in trace expressions:
  ev           every line, parsed, in order
  header, summary                   ev[0], ev[-1]
  ops(cap=None, decision=None, resolved=None, syscall=None, op=None)
  execs(exe=None)                   "exec" events (exe matched as a path or basename)
  lines        the raw lines (bytes); json_text: the events re-serialized
Common: _m(want, got) (match as below), kind(x) (capability kind of a string or {"kind":..}), scope_of(entry),
  R(regex) (a pattern: matches with re.fullmatch), base(path), real(path), os, re.
A "scope"/"resolved"/"path" argument is a string (exact), an R(...) pattern
or a one-argument predicate.
"""
import hashlib
import json
import os
import re
import stat
import sys


def _strict_const(name):
	raise ValueError("non-standard JSON constant %s" % name)


def loads(text):
	return json.loads(text, parse_constant=_strict_const)


class R:
	def __init__(self, pattern):
		self.rx = re.compile(pattern, re.S)

	def __call__(self, s):
		return isinstance(s, str) and self.rx.fullmatch(s) is not None

	def __repr__(self):
		return "R(%r)" % self.rx.pattern


def _match(want, got):
	if want is None:
		return True
	if isinstance(want, R) or callable(want):
		return bool(want(got))
	return want == got


def kind(x):
	if isinstance(x, dict):
		return x.get("kind")
	return x


def scope_of(e):
	if not isinstance(e, dict):
		return None
	if "scope" in e:
		return e["scope"]
	c = e.get("capability")
	if isinstance(c, dict):
		return c.get("scope")
	return None


def base(p):
	return os.path.basename(p) if isinstance(p, str) else None


def real(p):
	return os.path.realpath(p)


def _report_names(d):
	outcome = d.get("outcome") or {}

	def denials(cap=None, scope=None):
		return [e for e in d.get("denials") or []
			if _match(cap, kind(e.get("capability", e.get("kind"))))
			and _match(scope, scope_of(e))]

	def used(cap=None, scope=None):
		return [e for e in d.get("capabilitiesUsed") or []
			if _match(cap, kind(e.get("kind", e.get("capability"))))
			and _match(scope, scope_of(e))]

	def procs(exe=None):
		return [p for p in d.get("processes") or []
			if exe is None or _match(exe, base(p.get("exe"))) or _match(exe, p.get("exe"))]

	def changes(kind=None, path=None):
		lst = outcome.get("changes")
		if lst is None:
			lst = d.get("changes") or []
		return [c for c in lst if _match(kind, c.get("kind")) and _match(path, c.get("path"))]

	def spawned(prog):
		"""PROG (a basename or R(..) over basenames) was executed: in
		capabilitiesUsed as process_spawn or among the processes' exe."""
		return any(_match(prog, base(scope_of(e))) for e in used("process_spawn")) \
			or any(_match(prog, base(p.get("exe"))) for p in procs())

	def headline_ok():
		"""Issue 17 item 11, checked on the report's own data: an
		enforced denial is tolerated only when its process (the one that
		had its pid at its time, to the last program it ran) exited with
		status 0, and is when that pid had no other process; the run is
		enforcement_denied exactly when one was not tolerated (unless a
		timeout, a cancellation or policy_denied says more), and then
		outcome.denial is one of those, the same capability and scope."""
		by_pid = {}
		for p in d.get("processes") or []:
			by_pid.setdefault(p.get("pid"), []).append(p)

		def chains(pid):
			"""The processes that had PID, each as the records of the
			programs it ran (a record starts when the one before it
			ended by an exec), in time order."""
			out = []
			for p in sorted(by_pid.get(pid) or [], key=lambda p: p.get("start") or 0):
				last = out[-1][-1] if out else None
				if last is not None and last.get("end") is not None and not last.get("exit") \
						and abs((p.get("start") or 0) - last["end"]) < 2e-6:
					out[-1].append(p)
				else:
					out.append([p])
			return out

		def ended_ok(p):
			ex = p.get("exit") or {}
			return p.get("end") is not None and ex.get("code") == 0 and not ex.get("signal")

		enforced = [e for e in d.get("denials") or [] if e.get("enforced")]
		for e in enforced:
			pid, t = e.get("pid"), e.get("time") or 0
			if not pid:
				if e.get("tolerated"):
					raise AssertionError("denial %r before the command: tolerated" % (scope_of(e),))
				continue
			cs = chains(pid)
			# the process that had the pid at the denial's time: the
			# last to start before it
			at = [c for c in cs if (c[0].get("start") or 0) <= t + 1e-6]
			if not at:
				continue
			final = at[-1][-1]
			if e.get("tolerated") and not ended_ok(final):
				raise AssertionError("denial %r: tolerated, its process %r" % (scope_of(e), final))
			# a pid used by one process only (pid_max is 32768 here): its
			# end decides; with reuse the supervisor's own process numbers
			# may know better than times do
			if len(cs) == 1 and not e.get("tolerated") and ended_ok(final):
				raise AssertionError("denial %r: not tolerated, its process %r" % (scope_of(e), final))
		untolerated = [e for e in enforced if not e.get("tolerated")]
		k = outcome.get("kind")
		if k in ("timed_out", "cancelled", "policy_denied") or not d.get("processes"):
			# a minimal report (issue 14) lists no process nor denial
			return True
		if bool(untolerated) != (k == "enforcement_denied"):
			raise AssertionError("kind %r with %d untolerated denials" % (k, len(untolerated)))
		if untolerated:
			dn = outcome.get("denial") or {}
			if not any(kind(e.get("capability")) == kind(dn.get("capability"))
				   and scope_of(e) == scope_of(dn) for e in untolerated):
				raise AssertionError("outcome.denial %r is not an untolerated denial" % (dn,))
		return True

	def denied_run():
		"""An operation was denied at runtime (an enforced denial is in
		the report). The outcome that follows from it, enforcement_denied
		unless the process went on and succeeded, is headline_ok's."""
		return any(e.get("enforced") for e in d.get("denials") or [])

	def would_head():
		"""The denial that would head the report if no process had
		tolerated its denials (the same rule as cw_report_headline: a
		request_approval one first, then the latest): what "denial"
		means in a run whose denials were all tolerated."""
		enf = [e for e in d.get("denials") or [] if e.get("enforced")]
		if not enf:
			return {}
		best = max(enf, key=lambda e: (e.get("nextAction") == "request_approval", e.get("time", 0)))
		return {k: best[k] for k in ("capability", "source", "reason", "nextAction", "rule",
					     "syscall", "pid", "program") if k in best}

	return dict(d=d, outcome=outcome, denial=outcome.get("denial") or would_head(),
		    denials=denials, used=used, procs=procs, changes=changes, spawned=spawned,
		    headline_ok=headline_ok, denied_run=denied_run, text=json.dumps(d))


def _report_context(d):
	o = d.get("outcome") or {}
	out = {k: o.get(k) for k in ("state", "kind", "exit", "denial", "enforcement")}
	out["denials[:5]"] = (d.get("denials") or [])[:5]
	out["ndenials"] = len(d.get("denials") or [])
	out["capabilitiesUsed[:40]"] = (d.get("capabilitiesUsed") or [])[:40]
	out["changes[:20]"] = (o.get("changes") or d.get("changes") or [])[:20]
	return json.dumps(out, indent=1)[:6000]


def read_trace(path):
	with open(path, "rb") as f:
		data = f.read()
	if data and not data.endswith(b"\n"):
		raise ValueError("trace does not end with a newline")
	lines = data.split(b"\n")[:-1] if data else []
	ev = []
	for i, raw in enumerate(lines, 1):
		try:
			ev.append(loads(raw.decode("utf-8")))
		except Exception as e:  # noqa: BLE001 - any failure is a finding
			raise ValueError("line %d is not valid JSON (%s): %r" % (i, e, raw[:200]))
		if not isinstance(ev[-1], dict):
			raise ValueError("line %d is not a JSON object" % i)
	return lines, ev


def _trace_names(lines, ev):
	def ops(cap=None, decision=None, resolved=None, syscall=None, op=None):
		return [e for e in ev if e.get("type") == "op"
			and _match(cap, e.get("capability"))
			and _match(decision, e.get("decision"))
			and _match(resolved, e.get("resolved"))
			and _match(syscall, e.get("syscall"))
			and _match(op, e.get("op"))]

	def execs(exe=None):
		return [e for e in ev if e.get("type") == "exec"
			and (exe is None or _match(exe, e.get("exe")) or _match(exe, base(e.get("exe"))))]

	return dict(ev=ev, lines=lines, json_text="\n".join(json.dumps(e) for e in ev),
		    header=ev[0] if ev else {},
		    summary=ev[-1] if ev else {}, ops=ops, execs=execs)


def _trace_context(ev):
	counts = {}
	for e in ev:
		counts[e.get("type")] = counts.get(e.get("type"), 0) + 1
	deny = [e for e in ev if e.get("type") == "op" and e.get("decision") != "allow"][:8]
	return json.dumps({"counts": counts, "first": ev[:1], "last": ev[-1:],
			   "non-allow ops[:8]": deny}, indent=1)[:6000]


def check(names, exprs, context):
	env = dict(names)
	env.update(_m=_match, kind=kind, scope_of=scope_of, base=base, real=real, R=R, os=os, re=re, len=len)
	ok = True
	for x in exprs:
		try:
			val = eval(x, env)  # noqa: S307 - test expressions written by us
		except Exception as e:  # noqa: BLE001
			print("cwcheck: %s: raised %s: %s" % (x, type(e).__name__, e), file=sys.stderr)
			ok = False
			continue
		if not val:
			print("cwcheck: false: %s" % x, file=sys.stderr)
			ok = False
	if not ok:
		print("cwcheck: context:\n%s" % context(), file=sys.stderr)
	return ok


def snapshot(top):
	rows = []
	for dirpath, dirnames, filenames in os.walk(top):
		dirnames.sort()
		for n in sorted(dirnames + filenames):
			p = os.path.join(dirpath, n)
			st = os.lstat(p)
			h = ""
			if stat.S_ISREG(st.st_mode):
				with open(p, "rb") as f:
					h = hashlib.sha256(f.read()).hexdigest()
			elif stat.S_ISLNK(st.st_mode):
				h = os.readlink(p)
			rows.append("%r %o %d:%d %d %d %s" % (os.path.relpath(p, top), st.st_mode, st.st_uid,
								st.st_gid, st.st_size, st.st_mtime_ns, h))
	print("\n".join(rows))


def main(argv):
	if len(argv) < 3:
		print(__doc__, file=sys.stderr)
		return 2
	what, path, exprs = argv[1], argv[2], argv[3:]
	if what == "snapshot":
		snapshot(path)
		return 0
	if what == "report":
		try:
			with open(path, "rb") as f:
				d = loads(f.read().decode("utf-8"))
		except Exception as e:  # noqa: BLE001
			print("cwcheck: %s: not a readable JSON report: %s" % (path, e), file=sys.stderr)
			return 1
		if not isinstance(d, dict):
			print("cwcheck: %s: report is not a JSON object" % path, file=sys.stderr)
			return 1
		# every report checked is also checked for issue 17 item 11's
		# rule (headline_ok), whatever the test asked
		return 0 if check(_report_names(d), exprs + ["headline_ok()"], lambda: _report_context(d)) else 1
	if what == "trace":
		try:
			lines, ev = read_trace(path)
		except Exception as e:  # noqa: BLE001
			print("cwcheck: %s: %s" % (path, e), file=sys.stderr)
			return 1
		return 0 if check(_trace_names(lines, ev), exprs, lambda: _trace_context(ev)) else 1
	print(__doc__, file=sys.stderr)
	return 2


if __name__ == "__main__":
	sys.exit(main(sys.argv))
