#!/usr/bin/env python3
"""capwatch benchmark driver (issue 8). Not part of `make check`.

    bench.py --capwatch PATH --helpers DIR --srcdir DIR [--quick] [--rounds N]
             [--out DIR] [--only WORKLOADS] [--no-micro] [--scale]

Workloads (sizes in parentheses are --quick's):
  exec    2,000 (200) short processes: /bin/true from a sh loop
  open    100,000 (10,000) open+close and as many stat of 1,000 existing files
  cbuild  make -j2 of a generated 40-file (8-file) C project, from clean
  mix     60 (10) test-suite-like cases: temp dirs, files, sort/grep/sed,
          10 loopback TCP connections each (in a private netns)

Modes, run interleaved in every round (order reversed on odd rounds, so
slow drift of the machine hits every mode alike), after one untimed
warm-up run of each workload:
  bare     the command alone
  observe  capwatch --observe --report R -- cmd
  verify   capwatch --backend kernel --profile verify --trace T --report R -- cmd
           (the kernel back end: cgroup, proc connector, fanotify exec
           decisions, no ptrace; --backend auto where it cannot run)
  verify-portable  the same with --backend portable (seccomp-notify + ptrace)
  verify-nopreload  the same with CAPWATCH_PRELOAD=none: capwatch without
           its LD_PRELOAD library (which every dynamic program then loads;
           libunwind only on a first backtrace), to tell the two costs apart
  strace   strace -f --seccomp-bpf -e trace=SET -o /dev/null -- cmd
  verify-syncwake (only with --modes) verify with cwb_syncwake.so preloaded
           into capwatch: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP set on its
           listener, to measure that flag without changing supervisor/
  verify-kreads (only with --modes) verify with CAPWATCH_KERNEL_READS=1:
           the kernel back end with read-only opens decided in the kernel
           (the tree in a PID namespace of its own, fanotify FAN_OPEN_PERM)
  verify-nocolocate (only with --modes) verify with CAPWATCH_COLOCATE=0:
           capwatch and the target are not kept on one CPU during an
           emulated open (supervisor/colocate.h)
           (SET: the syscalls capwatch's filter always notifies, read from
           supervisor/handlers/table.c)

For each workload and mode: median wall time, median CPU (user+sys of the
whole tree, supervisor included: wait4 rusage of cwb_run's child), median
peak RSS of the biggest single process of the tree (wait4 ru_maxrss), the
supervisor's own peak RSS and CPU (getrusage(RUSAGE_SELF) at its exit, via
cwb_hwm.so), and for capwatch the events per second (report/trace stats:
events / elapsed). Ratios are median(mode) / median(bare).

The micro-benchmark (cwb_work micro, cwb_floor) gives microseconds per
operation, bare and supervised, unpinned and pinned to one CPU.

Results go to OUT/results.json and OUT/results.md and to stdout.
"""
import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

MODES = ['bare', 'observe', 'verify', 'verify-portable', 'verify-nopreload', 'strace']
EXTRA_MODES = ['verify-syncwake', 'verify-nocolocate', 'verify-kreads']  # experiments, chosen with --modes

SIZES = {
    'full': {'exec': 2000, 'open': 100000, 'cbuild': 40, 'mix': 60,
             'micro': 100000, 'micro_denied': 20000, 'micro_net': 20000,
             'micro_rounds': 5, 'scale_procs': 10000, 'scale_opens': 1000000},
    'quick': {'exec': 200, 'open': 10000, 'cbuild': 8, 'mix': 10,
              'micro': 5000, 'micro_denied': 2000, 'micro_net': 2000,
              'micro_rounds': 1, 'scale_procs': 1000, 'scale_opens': 20000},
}

# Rows of the capwatch filter that notify on every call of the syscall.
# The rows that notify only on some argument values (clone, unshare,
# seccomp, ioctl, fcntl, sendto) are left out of strace's set: strace
# cannot filter on arguments, and stopping on every ioctl/fcntl/clone
# would charge strace for calls capwatch never sees. This makes strace
# look cheaper, not dearer.
ALWAYS_RULES = ('CW_RULE_NOTIFY', 'CW_RULE_ESCAPE')


def strace_set(srcdir):
    path = os.path.join(srcdir, 'supervisor', 'handlers', 'table.c')
    names = []
    with open(path) as fh:
        text = fh.read()
    for m in re.finditer(r'^\s*ESCAPE\((\w+)\)', text, re.M):
        names.append(m.group(1))
    for m in re.finditer(r'^\s*\[__NR_\w+\]\s*=\s*\{\s*"(\w+)",\s*\w+,\s*(CW_RULE_\w+)', text, re.M):
        if m.group(2) in ALWAYS_RULES:
            names.append(m.group(1))
    if len(names) < 20:
        raise SystemExit(f'bench: could not read the syscall table from {path}')
    return sorted(set(names))


RUN_TIMEOUT = 600  # seconds for one measured run; a hang must not stall the suite


def run_bounded(argv, **kw):
    """subprocess.run in its own session, killed as a group after RUN_TIMEOUT."""
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True, **kw)
    try:
        out, err = p.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        err += f'\nbench: killed after {RUN_TIMEOUT} s'
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


class Bench:
    def __init__(self, args):
        self.a = args
        self.size = SIZES['quick' if args.quick else 'full']
        self.cw = os.path.abspath(args.capwatch)
        self.helpers = os.path.abspath(args.helpers)
        self.srcdir = os.path.abspath(args.srcdir)
        self.run_bin = os.path.join(self.helpers, 'cwb_run')
        self.work_bin = os.path.join(self.helpers, 'cwb_work')
        self.floor_bin = os.path.join(self.helpers, 'cwb_floor')
        self.hwm = os.path.join(self.helpers, 'cwb_hwm.so')
        self.tmp = tempfile.mkdtemp(prefix='cwbench-', dir=args.tmpdir)
        self.tmp = os.path.realpath(self.tmp)
        self.strace = shutil.which('strace')
        wanted = args.modes.split(',') if args.modes else MODES
        for m in wanted:
            if m not in MODES + EXTRA_MODES:
                raise SystemExit(f'bench: unknown mode {m}')
        if 'bare' not in wanted:
            wanted = ['bare'] + wanted
        self.modes = [m for m in wanted if m != 'strace' or self.strace]
        self.syncwake = os.path.join(self.helpers, 'cwb_syncwake.so')
        self.sset = strace_set(self.srcdir)
        self.sset_dropped = []
        if self.strace:
            self.sset = self.strace_known(self.sset)
        self.results = {}
        self.failures = []
        self.count = 0
        self.loads = []  # 1-minute load average seen before each measured run

    def strace_known(self, names):
        """Drop the names this strace does not know (e.g. fchmodat2 in 6.1)."""
        names = list(names)
        for _ in range(len(names)):
            p = subprocess.run([self.strace, '-e', 'trace=' + ','.join(names), '-o', '/dev/null', 'true'],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            m = re.search(r"invalid system call '(\w+)'", p.stderr)
            if not m or m.group(1) not in names:
                break
            names.remove(m.group(1))
            self.sset_dropped.append(m.group(1))
        return names

    # ---- one measured run ----

    @property
    def kernel_backend(self):
        """'kernel' where this machine runs it, else 'auto' (said once)."""
        if not hasattr(self, '_kb'):
            r = subprocess.run([self.cw, '--backend', 'kernel', '--', 'true'], capture_output=True, text=True)
            self._kb = 'kernel' if r.returncode == 0 else 'auto'
            if self._kb != 'kernel':
                print('# no kernel back end here (' + r.stderr.strip() + '): verify runs --backend auto',
                      file=sys.stderr)
        return self._kb

    def wrap(self, mode, cmd, tag, netns=False):
        """The command line for MODE, and the files it leaves results in."""
        files = {'hwm': os.path.join(self.tmp, f'{tag}.hwm')}
        env = {}
        if mode == 'bare':
            return cmd, files, env
        env = {'CWB_HWM_FILE': files['hwm']}  # cwb_run --preload puts cwb_hwm.so in
        if mode == 'strace':
            return ([self.strace, '-f', '--seccomp-bpf', '-e', 'trace=' + ','.join(self.sset),
                     '-o', '/dev/null', '-E', 'LD_PRELOAD', '-E', 'CWB_HWM_FILE', '--'] + cmd,
                    files, env)
        files['report'] = os.path.join(self.tmp, f'{tag}.report.json')
        if mode == 'observe':
            return [self.cw, '--observe', '--report', files['report'], '--'] + cmd, files, env
        if mode == 'verify-nopreload':
            env['CAPWATCH_PRELOAD'] = 'none'
        if mode == 'verify-nocolocate':
            env['CAPWATCH_COLOCATE'] = '0'
        if mode == 'verify-kreads':
            env['CAPWATCH_KERNEL_READS'] = '1'  # the kernel back end deciding reads in the kernel
        if mode in ('verify', 'verify-portable', 'verify-nopreload', 'verify-syncwake', 'verify-nocolocate',
                    'verify-kreads'):
            files['trace'] = os.path.join(self.tmp, f'{tag}.trace.jsonl')
            # In a private network namespace the proc connector may be out
            # of reach (SECURITY.md): auto, which says which it took.
            backend = 'portable' if mode == 'verify-portable' else ('auto' if netns else self.kernel_backend)
            return ([self.cw, '--backend', backend, '--profile', 'verify', '--trace', files['trace'],
                     '--report', files['report'], '--'] + cmd, files, env)
        raise ValueError(mode)

    def measure(self, mode, cmd, cwd, netns=False, cpu=None, keep_stdout=False,
                ok_outcomes=(None, 'success')):
        self.count += 1
        self.loads.append(os.getloadavg()[0])
        tag = f'r{self.count}'
        full, files, extra_env = self.wrap(mode, cmd, tag, netns)
        out = os.path.join(self.tmp, f'{tag}.cwb')
        pre = [self.run_bin, '--out', out]
        if mode == 'verify-syncwake':
            pre += ['--preload', self.hwm + ':' + self.syncwake]
        elif mode != 'bare':
            pre += ['--preload', self.hwm]
        if netns:
            pre.append('--netns')
        if cpu is not None:
            pre += ['--cpu', str(cpu)]
        env = dict(os.environ)
        env['TMPDIR'] = os.path.join(self.tmp, 'tmp')
        env.update(extra_env)
        p = run_bounded(pre + ['--'] + full, cwd=cwd, env=env)
        r = {'mode': mode}
        try:
            with open(out) as fh:
                line = fh.read().strip()
            for k, v in re.findall(r'(\w+)=([-\d.]+)', line):
                r[k] = float(v)
        except OSError:
            r['status'] = -1
        r['cpu'] = r.get('user', 0) + r.get('sys', 0)
        if os.path.exists(files['hwm']):
            with open(files['hwm']) as fh:
                rows = [ln.split() for ln in fh if ln.strip()]
            if rows:
                # The supervisor is the process with the largest peak among
                # those that wrote (only it should have).
                row = max(rows, key=lambda x: int(x[1]))
                r['sup_maxrss_kb'] = int(row[1]) if int(row[1]) > 0 else int(row[4])
                r['sup_cpu'] = float(row[2]) + float(row[3])
            os.unlink(files['hwm'])
        stats = None
        if 'trace' in files and os.path.exists(files['trace']):
            r['trace_bytes'] = os.path.getsize(files['trace'])
            last = None
            with open(files['trace'], 'rb') as fh:
                for ln in fh:
                    last = ln
            try:
                s = json.loads(last)
                if s.get('type') == 'summary':
                    stats = {'events': s['events'], 'elapsed': s['elapsed']}
            except (TypeError, ValueError):
                pass
            os.unlink(files['trace'])
        if 'report' in files and os.path.exists(files['report']):
            try:
                with open(files['report']) as fh:
                    rep = json.load(fh)
                r['outcome'] = rep.get('outcome', {}).get('kind')
                if stats is None:
                    stats = rep.get('stats')
                r['notifications'] = rep.get('stats', {}).get('notifications')
            except ValueError:
                r['outcome'] = 'unreadable report'
            os.unlink(files['report'])
        if stats and stats.get('elapsed'):
            r['events'] = stats['events']
            r['events_per_s'] = stats['events'] / stats['elapsed']
        r['ok'] = p.returncode == 0 and r.get('status') == 0 and r.get('outcome') in ok_outcomes
        if not r['ok']:
            self.failures.append({'mode': mode, 'cmd': cmd, 'rc': p.returncode,
                                  'outcome': r.get('outcome'), 'stderr': p.stderr[-2000:]})
            print(f'bench: FAILED {mode} {" ".join(cmd)} rc={p.returncode} '
                  f'outcome={r.get("outcome")}\n{p.stderr[-800:]}', file=sys.stderr)
        if keep_stdout:
            r['stdout'] = p.stdout
        return r

    # ---- workloads ----

    def setup(self):
        os.makedirs(os.path.join(self.tmp, 'tmp'))
        # open: 1,000 files in 10 directories.
        self.files_dir = os.path.join(self.tmp, 'files')
        for k in range(10):
            os.makedirs(os.path.join(self.files_dir, f'd{k}'))
        for i in range(1000):
            with open(os.path.join(self.files_dir, f'd{i % 10}', f'f{i // 10}'), 'w') as fh:
                fh.write(f'file {i}\n')
        # cbuild: the generated project.
        self.cdir = os.path.join(self.tmp, 'cproject')
        subprocess.run([sys.executable, os.path.join(self.srcdir, 'tests', 'bench', 'gen_cproject.py'),
                        self.cdir, str(self.size['cbuild'])], check=True)
        self.work_dir = os.path.join(self.tmp, 'ws')
        os.makedirs(self.work_dir)
        s = self.size
        self.workloads = {
            'exec': {'cmd': ['sh', '-c', 'i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done' % s['exec']],
                     'cwd': self.work_dir, 'desc': f'{s["exec"]} x /bin/true from a sh loop'},
            'open': {'cmd': [self.work_bin, 'open', self.files_dir, '1000', str(s['open'])],
                     'cwd': self.work_dir, 'desc': f'{s["open"]} open+close and {s["open"]} stat of 1,000 files'},
            'cbuild': {'cmd': ['make', '-j2', '-s'], 'cwd': self.cdir,
                       'desc': f'make -j2 of a generated {s["cbuild"]}-file C project, from clean',
                       'before': lambda: subprocess.run(['make', '-s', 'clean'], cwd=self.cdir, check=True)},
            'mix': {'cmd': ['sh', os.path.join(self.srcdir, 'tests', 'bench', 'mix.sh'), self.work_bin, str(s['mix'])],
                    'cwd': self.work_dir, 'netns': True,
                    'desc': f'{s["mix"]} test-like cases: temp dirs, files, coreutils, 10 loopback connects each'},
        }

    def run_workloads(self, names, rounds):
        # Warm the page cache for the supervisors themselves (untimed).
        for mode in self.modes:
            if mode != 'bare':
                self.measure(mode, ['true'], self.work_dir)
        for name in names:
            w = self.workloads[name]
            self.results[name] = {m: [] for m in self.modes}
            if w.get('before'):
                w['before']()
            self.measure('bare', w['cmd'], w['cwd'], netns=w.get('netns', False))  # warm-up
        for rnd in range(rounds):
            order = self.modes if rnd % 2 == 0 else list(reversed(self.modes))
            for name in names:
                w = self.workloads[name]
                for mode in order:
                    if w.get('before'):
                        w['before']()
                    r = self.measure(mode, w['cmd'], w['cwd'], netns=w.get('netns', False), cpu=self.a.pin)
                    self.results[name][mode].append(r)
                    print(f'bench: round {rnd + 1}/{rounds} {name:6s} {mode:16s} wall {r.get("wall", 0):8.3f} s'
                          f'  cpu {r["cpu"]:8.3f} s  load {self.loads[-1]:.2f}' + ('' if r['ok'] else '  FAILED'), flush=True)

    def summarize(self):
        summary = {}
        for name, per in self.results.items():
            summary[name] = {}
            bare_wall = median(r.get('wall') for r in per['bare'])
            bare_cpu = median(r['cpu'] for r in per['bare'])
            bare_rss = median(r.get('maxrss_kb') for r in per['bare'])
            for mode, runs in per.items():
                good = [r for r in runs if r['ok']]
                s = {
                    'runs': len(runs), 'ok': len(good),
                    'wall': median(r.get('wall') for r in good),
                    'cpu': median(r['cpu'] for r in good),
                    'tree_maxrss_kb': median(r.get('maxrss_kb') for r in good),
                    'sup_maxrss_kb': median(r.get('sup_maxrss_kb') for r in good),
                    'sup_maxrss_kb_max': max((r['sup_maxrss_kb'] for r in good if 'sup_maxrss_kb' in r), default=None),
                    'sup_cpu': median(r.get('sup_cpu') for r in good),
                    'events': median(r.get('events') for r in good),
                    'events_per_s': median(r.get('events_per_s') for r in good),
                    'walls': [r.get('wall') for r in runs],
                }
                if s['wall'] and bare_wall:
                    s['wall_ratio'] = s['wall'] / bare_wall
                if s['cpu'] and bare_cpu:
                    s['cpu_ratio'] = s['cpu'] / bare_cpu
                # The same ratio taken within each round (the runs of one
                # round are minutes apart at most), then the median: less
                # sensitive to load that changes between rounds.
                pairs = [(r.get('wall'), b.get('wall'), r['cpu'], b['cpu'])
                         for r, b in zip(runs, per['bare']) if r['ok'] and b['ok'] and b.get('wall')]
                if pairs:
                    s['wall_ratio_rounds'] = median(p[0] / p[1] for p in pairs)
                    s['cpu_ratio_rounds'] = median(p[2] / p[3] for p in pairs if p[3])
                if s['tree_maxrss_kb'] and bare_rss:
                    s['rss_ratio'] = s['tree_maxrss_kb'] / bare_rss
                summary[name][mode] = s
        return summary

    # ---- micro ----

    def run_micro(self):
        s = self.size
        secret = os.path.join(self.work_dir, 'bench-key.pem')  # a secret-looking name: verify denies it
        with open(secret, 'w') as fh:
            fh.write('not a key\n')
        plain = os.path.join(self.files_dir, 'd0', 'f0')
        # (label, argv, netns, expected errno bare, expected errno under verify)
        kinds = [
            ('getppid (not notified)', ['getppid', str(s['micro'])], False, '0', '0'),
            ('stat (not notified)', ['stat', str(s['micro']), plain], False, '0', '0'),
            ('open+close, allowed', ['open', str(s['micro']), plain], False, '0', '0'),
            ('open, denied (secret path)', ['open', str(s['micro_denied']), secret], False, '0', None),
            ('loopback connect, allowed', ['connect', str(s['micro_net'])], True, '0', '0'),
            ('connect 203.0.113.7, denied', ['connect-ext', str(s['micro_denied'])], True, 'ENETUNREACH', None),
        ]
        variants = [('bare', 'bare', None), ('verify', 'cwmicro', None), ('verify+trace', 'verify', None),
                    ('bare, 1 CPU', 'bare', 0), ('verify, 1 CPU', 'cwmicro', 0)]
        res = {}
        for rnd in range(s['micro_rounds']):
            for label, argv, netns, bare_err, cw_err in kinds:
                for vname, mode, cpu in variants:
                    r = self.measure_micro(mode, [self.work_bin, 'micro'] + argv, netns, cpu)
                    exp = bare_err if mode == 'bare' else cw_err
                    err = r.get('errno')
                    good = r['ok'] and (err == exp if exp is not None else err not in (None, '0'))
                    if not good:
                        self.failures.append({'micro': label, 'variant': vname, 'errno': err, 'expected': exp})
                        print(f'bench: micro {label} {vname}: errno {err}, expected {exp}', file=sys.stderr)
                    n_ops = int(argv[1]) + int(argv[1]) // 10 + 1  # timed + warm-up
                    res.setdefault(label, {}).setdefault(vname, []).append(
                        {'us': r.get('us_per_op'), 'errno': err, 'ok': good, 'sup_maxrss_kb': r.get('sup_maxrss_kb'),
                         'sup_us': r['sup_cpu'] * 1e6 / n_ops if r.get('sup_cpu') is not None else None})
                    print(f'bench: micro {label:30s} {vname:14s} {r.get("us_per_op", 0):9.3f} us/op errno={err}', flush=True)
        out = {}
        for label, per in res.items():
            out[label] = {}
            for vname, runs in per.items():
                out[label][vname] = {'us_per_op': median(x['us'] for x in runs if x['ok']),
                                     'errno': runs[-1]['errno'],
                                     'sup_maxrss_kb': median(x['sup_maxrss_kb'] for x in runs),
                                     'sup_cpu_us_per_op': median(x['sup_us'] for x in runs)}
        # The floor: one notification round trip, nothing else; and one
        # emulated open (ADDFD|SEND), nothing else.
        floor = {}
        for rnd in range(s['micro_rounds']):
            for what in ('getppid', 'open'):
                for vname, sync, cpu in [('unpinned', False, None), ('unpinned, SYNC_WAKE_UP', True, None),
                                         ('1 CPU', False, 0), ('1 CPU, SYNC_WAKE_UP', True, 0)]:
                    pre = [self.run_bin]
                    if cpu is not None:
                        pre += ['--cpu', str(cpu)]
                    argv = [self.floor_bin, str(s['micro'] // 2)] + (['sync'] if sync else [])
                    argv += ['addfd'] if what == 'open' else []
                    p = subprocess.run(pre + ['--'] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, timeout=300)
                    m = re.search(r'floor notify .*us_per_op=([\d.]+)', p.stdout)
                    b = re.search(r'floor bare .*us_per_op=([\d.]+)', p.stdout)
                    bare_key = f'{what} bare' + (', 1 CPU' if cpu is not None else '')
                    key = f'{what} {"CONTINUE" if what == "getppid" else "ADDFD+SEND"}, {vname}'
                    if m and b:
                        floor.setdefault(key, []).append(float(m.group(1)))
                        floor.setdefault(bare_key, []).append(float(b.group(1)))
                    else:
                        floor.setdefault(key, [])
                        print(f'bench: floor {key}: {p.stderr.strip()}', file=sys.stderr)
        out['_floor'] = {k: median(v) for k, v in floor.items()}
        return out

    def measure_micro(self, mode, cmd, netns, cpu):
        if mode == 'cwmicro':
            # verify without trace or report: the decision path alone.
            self.count += 1
            hwm = os.path.join(self.tmp, f'r{self.count}.hwm')
            env = dict(os.environ, TMPDIR=os.path.join(self.tmp, 'tmp'), CWB_HWM_FILE=hwm)
            pre = [self.run_bin, '--preload', self.hwm] + (['--netns'] if netns else []) + (['--cpu', str(cpu)] if cpu is not None else [])
            p = run_bounded(pre + ['--', self.cw, '--profile', 'verify', '--'] + cmd, cwd=self.work_dir, env=env)
            r = {'ok': p.returncode == 0, 'stdout': p.stdout}
            if p.returncode != 0:
                print(f'bench: micro {" ".join(cmd)} under verify: rc {p.returncode}\n{p.stderr[-800:]}',
                      file=sys.stderr)
            if os.path.exists(hwm):
                with open(hwm) as fh:
                    rows = [ln.split() for ln in fh if ln.strip()]
                if rows:
                    row = max(rows, key=lambda x: int(x[1]))
                    r['sup_maxrss_kb'] = int(row[1])
                    r['sup_cpu'] = float(row[2]) + float(row[3])
                os.unlink(hwm)
        else:
            # A run of denials ends "enforcement_denied": expected here.
            r = self.measure(mode, cmd, self.work_dir, netns=netns, cpu=cpu, keep_stdout=True,
                             ok_outcomes=(None, 'success', 'enforcement_denied'))
        m = re.search(r'us_per_op=([\d.]+).*errno=(\S+)', r.get('stdout', ''))
        if m:
            r['us_per_op'] = float(m.group(1))
            r['errno'] = m.group(2)
        else:
            r['ok'] = False
        return r

    # ---- scale ----

    def run_scale(self):
        """One run each (not interleaved, not repeated): many processes, and
        many events, under verify --trace; what matters is the supervisor's
        peak memory and that the trace is complete."""
        out = []
        n = self.size['scale_procs']
        cmd = ['sh', '-c', 'i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done' % n]
        r = self.measure('verify', cmd, self.work_dir)
        r['what'] = f'{n:,} processes (/bin/true from a sh loop)'
        r['procs'] = n
        out.append(r)
        m = self.size['scale_opens']
        r = self.measure('verify', [self.work_bin, 'open', self.files_dir, '1000', str(m)], self.work_dir)
        r['what'] = f'{m:,} opens (and as many stats) in one process'
        out.append(r)
        return out


def source_revision(srcdir):
    """The commit measured, and whether the supervisor/policy sources differ from it."""
    try:
        head = subprocess.run(['git', '-C', srcdir, 'rev-parse', '--short', 'HEAD'], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', srcdir, 'status', '--porcelain', '--', 'supervisor', 'policy'],
                               capture_output=True, text=True).stdout.strip()
        return head + (' (with uncommitted changes in supervisor/ or policy/)' if dirty else '')
    except (OSError, subprocess.CalledProcessError):
        return 'unknown (not a git checkout)'


def fmt(x, spec='.2f', unit=''):
    return '–' if x is None else format(x, spec) + unit


def render_targets(summary, scale):
    """Issue 8's "done when", checked on this run's numbers (per-round
    median ratios, wall time; verify is capwatch --profile verify --trace)."""
    def ratio(workload, mode):
        return summary.get(workload, {}).get(mode, {}).get('wall_ratio_rounds')

    def quotient(workload, mode='verify'):
        v, st = ratio(workload, mode), ratio(workload, 'strace')
        if v is None or st is None or st <= 1:
            return None
        return (v - 1) / (st - 1)

    def verdict(x, ok):
        return 'not measured' if x is None else ('met' if ok(x) else 'not met')

    rows = []
    c = ratio('cbuild', 'verify')
    rows.append(('kernel back end: real C build, verify + trace ≤ 1.03× bare', fmt(c, '.2f', '×'),
                 verdict(c, lambda x: x <= 1.03)))
    for w, what in (('open', 'open-heavy'), ('exec', 'exec-heavy')):
        q = quotient(w)
        rows.append((f'kernel back end, {what}: capwatch overhead ≤ ⅓ of strace\'s', fmt(q, '.2f'),
                     verdict(q, lambda x: x <= 1 / 3)))
    # The same targets for the kernel back end deciding reads in the
    # kernel (CAPWATCH_KERNEL_READS=1), when the run measured it.
    c = ratio('cbuild', 'verify-kreads')
    if c is not None or ratio('exec', 'verify-kreads') is not None or ratio('open', 'verify-kreads') is not None:
        rows.append(('kernel back end, reads in the kernel: real C build ≤ 1.03× bare', fmt(c, '.2f', '×'),
                     verdict(c, lambda x: x <= 1.03)))
        for w, what in (('open', 'open-heavy'), ('exec', 'exec-heavy')):
            q = quotient(w, 'verify-kreads')
            rows.append((f'kernel back end, reads in the kernel, {what}: overhead ≤ ⅓ of strace\'s',
                         fmt(q, '.2f'), verdict(q, lambda x: x <= 1 / 3)))
    # The portable back end's own bar: no workload above strace's overhead.
    for w in ('exec', 'open', 'cbuild', 'mix'):
        p, st = ratio(w, 'verify-portable'), ratio(w, 'strace')
        q = None if p is None or st is None else (p - 1) - (st - 1)
        rows.append((f'portable back end, {w}: overhead ≤ strace\'s', 'not measured' if q is None else
                     f'{p:.2f}× vs {st:.2f}×', verdict(q, lambda x: x <= 0)))
    mib = None
    for r in scale or []:
        if r.get('procs') and r.get('sup_maxrss_kb') and r['procs'] >= 10000:
            mib = r['sup_maxrss_kb'] / 1024
    rows.append(('supervisor peak < 64 MiB for 10,000 processes', fmt(mib, '.1f', ' MiB'),
                 verdict(mib, lambda x: x < 64)))
    L = ['', 'Issue 8\'s targets, on this run (one run says little about the build, whose per-round ratios '
         'vary by several per cent; tests/bench/RESULTS.md has the analysis):', '',
         '| target | measured | |', '|---|---:|---|']
    L += [f'| {a} | {m} | {v} |' for a, m, v in rows]
    return L


def render(b, summary, micro, scale, args, started, ended):
    L = []
    L.append(f'capwatch benchmark ({"quick" if args.quick else "full"}), {b.a.rounds} rounds, interleaved'
             + (f', every workload pinned to CPU {b.a.pin}' if getattr(b.a, 'pin', None) is not None else ''))
    L.append(f'started {started}, ended {ended}; kernel {platform.release()}, nproc {os.cpu_count()}, '
             f'1-min load average before each run: min {min(b.loads, default=0):.2f}, '
             f'median {median(b.loads) or 0:.2f}, max {max(b.loads, default=0):.2f} '
             f'(a quiet 2-CPU machine is near 0; above 1 other work competed for the CPUs); source {b.revision}')
    if b.strace:
        L.append(f'strace set ({len(b.sset)} syscalls): {",".join(b.sset)}'
                 + (f' (unknown to this strace, left out: {",".join(b.sset_dropped)})' if b.sset_dropped else ''))
    else:
        L.append('strace: not installed, mode skipped')
    L.append('')
    L.append('Medians over the rounds. "× bare" is median(mode) / median(bare); "per round" is the median over rounds '
             'of (mode / bare in the same round).')
    L.append('')
    L.append('| workload | mode | wall (s) | × bare | × bare per round | CPU (s) | × bare | × bare per round '
             '| tree peak RSS (MiB) | × bare | supervisor peak RSS (MiB) | supervisor CPU (s) | events/s |')
    L.append('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for name, per in summary.items():
        for mode, s in per.items():
            L.append(f'| {name} | {mode} | {fmt(s["wall"], ".3f")} | {fmt(s.get("wall_ratio"), ".2f")} | '
                     f'{fmt(s.get("wall_ratio_rounds"), ".2f")} | '
                     f'{fmt(s["cpu"], ".3f")} | {fmt(s.get("cpu_ratio"), ".2f")} | '
                     f'{fmt(s.get("cpu_ratio_rounds"), ".2f")} | '
                     f'{fmt(s["tree_maxrss_kb"] and s["tree_maxrss_kb"] / 1024, ".1f")} | '
                     f'{fmt(s.get("rss_ratio"), ".2f")} | '
                     f'{fmt(s["sup_maxrss_kb"] and s["sup_maxrss_kb"] / 1024, ".1f")} | '
                     f'{fmt(s["sup_cpu"], ".3f")} | {fmt(s["events_per_s"], ",.0f")} |'
                     + ('' if s['ok'] == s['runs'] else f' ({s["runs"] - s["ok"]} of {s["runs"]} runs failed)'))
    L.append('')
    L.append('Overhead (per-round ratio − 1) of capwatch against strace -f --seccomp-bpf, wall time; '
             'the last column is the same verify/strace quotient on CPU time. A quotient is meaningless '
             'where an overhead is within noise of 0:')
    L.append('')
    L.append('| workload | observe | verify+trace | verify, no preload | strace | observe / strace | verify / strace '
             '| verify no preload / strace | verify / strace, CPU |')
    L.append('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for name, per in summary.items():
        def ov(m):
            r = per.get(m, {}).get('wall_ratio_rounds')
            return None if r is None else r - 1
        o, v, vn, st = ov('observe'), ov('verify'), ov('verify-nopreload'), ov('strace')
        q = lambda x: fmt(x / st if x is not None and st else None, ".2f")
        cv = per.get('verify', {}).get('cpu_ratio_rounds')
        cs = per.get('strace', {}).get('cpu_ratio_rounds')
        cq = (cv - 1) / (cs - 1) if cv is not None and cs is not None and cs != 1 else None
        L.append(f'| {name} | {fmt(o, "+.3f")} | {fmt(v, "+.3f")} | {fmt(vn, "+.3f")} | {fmt(st, "+.3f")} | '
                 f'{q(o)} | {q(v)} | {q(vn)} | {fmt(cq, ".2f")} |')
    L.extend(render_targets(summary, scale))
    if micro:
        L.append('')
        L.append('Micro-benchmark, µs per operation (median over rounds; overhead = supervised − bare):')
        L.append('')
        L.append('| operation | bare | verify | verify+trace | bare, 1 CPU | verify, 1 CPU | overhead | overhead, 1 CPU '
                 '| supervisor CPU per op (verify) | supervisor peak RSS, MiB (verify) | errno under verify |')
        L.append('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
        for label, per in micro.items():
            if label.startswith('_'):
                continue
            g = lambda v: per.get(v, {}).get('us_per_op')
            d1 = g('verify') - g('bare') if g('verify') is not None and g('bare') is not None else None
            d2 = (g('verify, 1 CPU') - g('bare, 1 CPU')
                  if g('verify, 1 CPU') is not None and g('bare, 1 CPU') is not None else None)
            L.append(f'| {label} | {fmt(g("bare"), ".2f")} | {fmt(g("verify"), ".2f")} | {fmt(g("verify+trace"), ".2f")} | '
                     f'{fmt(g("bare, 1 CPU"), ".2f")} | {fmt(g("verify, 1 CPU"), ".2f")} | {fmt(d1, ".2f")} | '
                     f'{fmt(d2, ".2f")} | {fmt(per.get("verify", {}).get("sup_cpu_us_per_op"), ".2f")} | '
                     f'{fmt(per.get("verify", {}).get("sup_maxrss_kb") and per["verify"]["sup_maxrss_kb"] / 1024, ".1f")} | '
                     f'{per.get("verify", {}).get("errno")} |')
        fl = micro.get('_floor', {})
        L.append('')
        L.append('Floor (cwb_floor): a thread that does nothing but answer, µs per operation. getppid answered '
                 'CONTINUE = one notification round trip; open(/dev/null)+close answered ADDFD+SEND = one '
                 'emulated open, as capwatch does for every allowed open.')
        L.append('')
        L.append('| floor | µs/op |')
        L.append('|---|---:|')
        for k in sorted(fl):
            L.append(f'| {k} | {fmt(fl[k], ".2f")} |')
    if scale:
        L.append('')
        L.append('Scale, one run each under verify --trace (the trace is written as the run goes: '
                 'buffered, flushed at least every second):')
        L.append('')
        L.append('| run | wall (s) | events | events/s | supervisor peak RSS (MiB) | trace (MiB) | outcome |')
        L.append('|---|---:|---:|---:|---:|---:|---|')
        for r in scale:
            L.append(f'| {r["what"]} | {fmt(r.get("wall"), ".2f")} | {fmt(r.get("events"), ",.0f")} | '
                     f'{fmt(r.get("events_per_s"), ",.0f")} | '
                     f'{fmt(r.get("sup_maxrss_kb") and r["sup_maxrss_kb"] / 1024, ".1f")} | '
                     f'{fmt(r.get("trace_bytes") and r["trace_bytes"] / 1048576, ".1f")} | '
                     f'{r.get("outcome")}{"" if r.get("ok") else " (FAILED)"} |')
    if b.failures:
        L.append('')
        L.append(f'{len(b.failures)} failed runs: see results.json')
    return '\n'.join(L) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--capwatch', required=True)
    ap.add_argument('--helpers', required=True, help='directory with cwb_run, cwb_work, cwb_floor, cwb_hwm.so')
    ap.add_argument('--srcdir', required=True)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--rounds', type=int)
    ap.add_argument('--only', default='exec,open,cbuild,mix')
    ap.add_argument('--no-micro', action='store_true')
    ap.add_argument('--modes', help='comma-separated modes (default: ' + ','.join(MODES) + '); also: '
                    + ','.join(EXTRA_MODES))
    ap.add_argument('--pin', type=int, metavar='CPU',
                    help='run every workload (all modes) on this one CPU: shows what cross-CPU wake-ups cost')
    ap.add_argument('--scale', action='store_true',
                    help='also one 10,000-process and one 1,000,000-open run under verify --trace')
    ap.add_argument('--out', default='bench-results')
    ap.add_argument('--tmpdir', default=None)
    ap.add_argument('--render', metavar='RESULTS_JSON', help='only print the tables of an earlier run')
    args = ap.parse_args()
    if args.render:
        with open(args.render) as fh:
            d = json.load(fh)
        b = argparse.Namespace(a=argparse.Namespace(rounds=d['rounds'], pin=d.get('pin')), strace=bool(d.get('strace_set')),
                               sset=d.get('strace_set', []), sset_dropped=d.get('strace_dropped', []),
                               loads=d.get('loads', []), revision=d.get('revision', 'not recorded'),
                               failures=d.get('failures', []))
        # Ratios are recomputed from the raw runs, so older files render too.
        b.results = d['raw']
        summary = Bench.summarize(b)
        args.quick = d.get('quick')
        print(render(b, summary, d.get('micro'), d.get('scale'), args, d['started'], d['ended']), end='')
        return 0
    if args.rounds is None:
        args.rounds = 1 if args.quick else 5
    if os.geteuid() != 0:
        # cwb_run --netns needs CAP_SYS_ADMIN for unshare(CLONE_NEWNET).
        print('bench: the mix workload and network micro-benchmarks need root (private netns)', file=sys.stderr)
    b = Bench(args)
    started = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    b.revision = source_revision(b.srcdir)
    try:
        b.setup()
        b.run_workloads([w for w in args.only.split(',') if w], args.rounds)
        summary = b.summarize()
        micro = None if args.no_micro else b.run_micro()
        scale = b.run_scale() if args.scale else None
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)
    ended = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    text = render(b, summary, micro, scale, args, started, ended)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, 'results.md'), 'w') as fh:
        fh.write(text)
    with open(os.path.join(args.out, 'results.json'), 'w') as fh:
        json.dump({'revision': b.revision, 'loads': b.loads, 'started': started, 'ended': ended, 'kernel': platform.release(), 'nproc': os.cpu_count(),
                   'quick': args.quick, 'rounds': args.rounds, 'pin': args.pin, 'strace_set': b.sset,
                   'strace_dropped': getattr(b, 'sset_dropped', []),
                   'summary': summary, 'micro': micro, 'scale': scale, 'failures': b.failures,
                   'raw': b.results}, fh, indent=1, default=str)
    print(text)
    return 1 if b.failures else 0


if __name__ == '__main__':
    sys.exit(main())
