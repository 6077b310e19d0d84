/* capwatch export --format html: the timeline (issue 18, item 3).
 * Embedded into the page by tools/export_timeline.c, after the data block
 * CWD (its layout is described there). It draws on one canvas only the
 * lanes in view: a lane per group of processes (program or parent), whose
 * height at each pixel is how many of the group's processes ran then, and
 * under it a strip where the group's operations happened; an open group
 * adds a lane per process. Strings from the trace reach the page only as
 * canvas text and textContent, never as markup. No network, no storage.
 * This file must not hold a less-than sign followed by a slash, nor an
 * HTML comment opener: it is inlined in a script element. */
(function () {
	'use strict';
	var D = typeof CWD === 'object' ? CWD : null;
	var cv = document.getElementById('tl');
	if (!D || !cv || !cv.getContext)
		return;
	var ctx = cv.getContext('2d');
	var view = document.getElementById('tlview'), sp = document.getElementById('tlsp');
	var tip = document.getElementById('tltip'), info = document.getElementById('tlinfo');
	var lanesEl = document.getElementById('tllanes'), by = document.getElementById('tlby');
	var S = D.S, P = D.P, E = D.E, PS = 10, ES = 8;
	var NP = P.length / PS, NE = E.length / ES, SPAN = Math.max(D.span, 1);
	var LW = 250, AX = 26, GH = 26, PH = 15, MAXH = 560, MAXG = 150, PAD = 10;
	var C = {
		bar: '#8ab4f8', deny: '#b00020', flag: '#e8710a', op: '#5f6368', text: '#222',
		dim: '#666', grid: '#e4e4e4', axis: '#f0f0f0', alt: '#f6f8fb', line: '#cfcfcf',
		brush: 'rgba(26,86,196,0.18)', exec: '#1a56c4'
	};
	var F_DENY = 1, F_FLAG = 2, F_UNENF = 4;
	var mode = 'program', groups = [], rows = [], open = {}, total = 0;
	var v0 = 0, v1 = SPAN, W = 0, H = 0, drag = null, brush = null;
	var i, p;

	function pstart(q) { return P[q * PS + 4]; }
	function pend(q) { var e = P[q * PS + 5]; return e < 0 ? SPAN : e; }
	function base(s) { var k = s.lastIndexOf('/'); return k >= 0 && k < s.length - 1 ? s.slice(k + 1) : s; }
	function num(x) { return x.toLocaleString('en-US'); }
	function plural(n, w) { return num(n) + ' ' + w + (n === 1 ? '' : (/s$/.test(w) ? 'es' : 's')); }
	function fmtT(t, step) {
		var d = step ? Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / 1e6)))) : 6;
		return '+' + (t / 1e6).toFixed(d) + ' s';
	}

	/* the operations of each process, in time order (E is sorted) */
	var pev = new Array(NP);
	for (i = 0; i < NE; i++) {
		p = E[i * ES + 1];
		(pev[p] || (pev[p] = [])).push(i);
	}

	function pname(q) { return base(S[P[q * PS + 2]]); }

	function build() {
		var map = Object.create(null), list = [], key, g, q, n;
		for (q = 0; q < NP; q++) {
			key = mode === 'program' ? 'x' + P[q * PS + 2] : 'p' + P[q * PS + 1];
			g = map[key];
			if (!g) {
				g = map[key] = { key: key, procs: [], ops: 0, den: 0, t0: Infinity, t1: -Infinity, ev: null };
				if (mode === 'program') {
					g.full = S[P[q * PS + 2]];
					g.label = base(g.full);
				} else {
					n = P[q * PS + 1];
					g.full = n < 0 ? 'processes without a recorded parent' :
						S[P[n * PS + 2]] + ' (pid ' + P[n * PS] + ')';
					g.label = n < 0 ? '(no parent)' : 'under ' + pname(n) + ' ' + P[n * PS];
				}
				list.push(g);
			}
			g.procs.push(q);
			g.ops += P[q * PS + 7];
			g.den += P[q * PS + 8];
			g.t0 = Math.min(g.t0, pstart(q));
			g.t1 = Math.max(g.t1, pend(q));
		}
		var other = null;
		if (list.length > MAXG) {
			/* the largest groups keep a lane; the rest share one */
			list.sort(function (a, b) { return b.procs.length - a.procs.length || a.t0 - b.t0; });
			var rest = list.splice(MAXG - 1);
			other = { key: '*other', procs: [], ops: 0, den: 0, t0: Infinity, t1: -Infinity, ev: null,
				label: 'other (' + num(rest.length) + ' groups)',
				full: num(rest.length) + ' smaller groups in one lane' };
			rest.forEach(function (r) {
				for (var k = 0; k < r.procs.length; k++)
					other.procs.push(r.procs[k]);
				other.ops += r.ops;
				other.den += r.den;
				other.t0 = Math.min(other.t0, r.t0);
				other.t1 = Math.max(other.t1, r.t1);
			});
		}
		list.sort(function (a, b) { return a.t0 - b.t0 || (a.key < b.key ? -1 : 1); });
		if (other)
			list.push(other);
		/* two programs of one name (/usr/bin/python3, /opt/x/python3) */
		var seen = Object.create(null);
		list.forEach(function (g2) { seen[g2.label] = (seen[g2.label] || 0) + 1; });
		list.forEach(function (g2, k) {
			if (mode === 'program' && seen[g2.label] > 1)
				g2.label = g2.full;
			g2.n = k;
			g2.procs.sort(function (a, b) { return pstart(a) - pstart(b) || a - b; });
		});
		groups = list;
	}

	function gev(g) {
		if (!g.ev) {
			var a = [];
			g.procs.forEach(function (q) {
				var l = pev[q];
				if (l)
					for (var k = 0; k < l.length; k++)
						a.push(l[k]);
			});
			a.sort(function (x, y) { return E[x * ES] - E[y * ES] || x - y; });
			g.ev = a;
		}
		return g.ev;
	}

	function layout() {
		var y = 0;
		rows = [];
		groups.forEach(function (g) {
			rows.push({ g: g, p: -1, y: y, h: GH });
			y += GH;
			if (open[g.key])
				g.procs.forEach(function (q) {
					rows.push({ g: g, p: q, y: y, h: PH });
					y += PH;
				});
		});
		total = y;
		H = Math.min(total + AX, MAXH);
		if (total === 0)
			H = AX + GH;
		view.style.height = H + 'px';
		cv.style.height = H + 'px';
		sp.style.height = Math.max(0, total + AX - H) + 'px';
		draw();
	}

	function cols() { return Math.max(20, W - LW - PAD); }
	function X(t) { return LW + (t - v0) / (v1 - v0) * cols(); }
	function tAt(x) { return v0 + (x - LW) / cols() * (v1 - v0); }

	function nice(x) {
		var e = Math.pow(10, Math.floor(Math.log10(x))), f = x / e;
		return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
	}

	/* first index of a time-sorted list of events at or after T */
	function lower(list, t) {
		var lo = 0, hi = list.length, m;
		while (lo < hi) {
			m = (lo + hi) >> 1;
			if (E[list[m] * ES] < t)
				lo = m + 1;
			else
				hi = m;
		}
		return lo;
	}

	function clipText(s, w) {
		if (ctx.measureText(s).width <= w)
			return s;
		var lo = 0, hi = s.length;
		while (lo < hi) {
			var m = (lo + hi + 1) >> 1;
			if (ctx.measureText(s.slice(0, m) + '\u2026').width <= w)
				lo = m;
			else
				hi = m - 1;
		}
		return s.slice(0, lo) + '\u2026';
	}

	var marks = 0, ticks = [];
	/* the grid of the axis' ticks, over a lane's background */
	function grid(y, h) {
		ctx.fillStyle = C.grid;
		for (var k = 0; k < ticks.length; k++)
			ctx.fillRect(Math.floor(X(ticks[k])), y, 1, h);
	}
	/* operations of LIST inside the window: a strip (or ticks) and marks */
	function drawOps(list, y, h, stripY, stripH) {
		var n = cols(), k = lower(list, v0), x, f, last = -1, e;
		var den = [];
		ctx.fillStyle = C.op;
		for (; k < list.length; k++) {
			e = list[k] * ES;
			if (E[e] > v1)
				break;
			x = Math.floor(X(E[e]));
			f = E[e + 6];
			if (f & (F_DENY | F_FLAG))
				den.push(x, f);
			if (x !== last && x < LW + n) {
				ctx.fillRect(x, stripY, 1, stripH);
				last = x;
			}
		}
		for (k = 0; k < den.length; k += 2) {
			ctx.fillStyle = den[k + 1] & F_DENY ? C.deny : C.flag;
			ctx.fillRect(den[k] - 1, y + 1, 2, h - 2);
			marks++;
		}
	}

	function drawGroup(g, y) {
		/* per pixel column: how many of the group ran there on average
		 * (the time they covered over the column's time), and whether
		 * any did at all, so that a process shorter than a pixel shows */
		var n = cols(), k = (v1 - v0) / n, cov = new Float64Array(n + 1), full = new Int32Array(n + 1);
		var any = new Int32Array(n + 1), q, s, e, a, b, ca, cb, c, run, pr, max = 0;
		ctx.fillStyle = g.n % 2 ? C.alt : '#fff';
		ctx.fillRect(0, y, W, GH);
		grid(y, GH);
		for (q = 0; q < g.procs.length; q++) {
			s = pstart(g.procs[q]);
			e = pend(g.procs[q]);
			if (e < v0 || s > v1)
				continue;
			a = (Math.max(s, v0) - v0) / k;
			b = Math.min(n, (Math.min(e, v1) - v0) / k);
			ca = Math.min(n - 1, Math.floor(a));
			cb = Math.min(n - 1, Math.floor(b));
			if (ca === cb)
				cov[ca] += b - a;
			else {
				cov[ca] += ca + 1 - a;
				full[ca + 1]++;
				full[cb]--;
				cov[cb] += b - cb;
			}
			any[ca]++;
			any[cb + 1]--;
		}
		for (c = 0, run = 0, pr = 0; c < n; c++) {
			run += full[c];
			pr += any[c];
			cov[c] += run;
			any[c] = pr;
			if (cov[c] > max)
				max = cov[c];
		}
		/* the band: its height in whole pixels, at least 3 where any ran */
		var top = y + 3, bh = GH - 10, hs = new Int32Array(n);
		for (c = 0; c < n; c++)
			hs[c] = any[c] > 0 ? Math.max(3, Math.round(bh * cov[c] / (max || 1))) : 0;
		ctx.fillStyle = C.bar;
		for (c = 0; c < n;) {
			var h0 = hs[c], c2 = c + 1;
			while (c2 < n && hs[c2] === h0)
				c2++;
			if (h0 > 0)
				ctx.fillRect(LW + c, top + bh - h0, c2 - c, h0);
			c = c2;
		}
		drawOps(gev(g), y, GH, y + GH - 6, 4);
		/* the label */
		ctx.fillStyle = g.n % 2 ? C.alt : '#fff';
		ctx.fillRect(0, y, LW - 2, GH);
		var right = '\u00d7' + num(g.procs.length);
		ctx.font = '12px system-ui, sans-serif';
		var rw = ctx.measureText(right).width, dw = 0, dtext = '';
		if (g.den) {
			dtext = num(g.den) + ' denied';
			dw = ctx.measureText(dtext).width + 8;
		}
		ctx.fillStyle = C.dim;
		ctx.fillText(right, LW - PAD - rw, y + GH / 2);
		if (g.den) {
			ctx.fillStyle = C.deny;
			ctx.fillText(dtext, LW - PAD - rw - dw, y + GH / 2);
		}
		ctx.font = '600 12px system-ui, sans-serif';
		ctx.fillStyle = C.text;
		ctx.fillText(clipText((open[g.key] ? '\u25be ' : '\u25b8 ') + g.label, LW - PAD - rw - dw - 12 - 6),
			6, y + GH / 2);
		ctx.font = '12px system-ui, sans-serif';
	}

	function drawProc(q, y, odd) {
		var s = pstart(q), e = pend(q), x0 = Math.floor(X(s)), x1 = Math.floor(X(e));
		ctx.fillStyle = odd ? '#fbfbfb' : '#fff';
		ctx.fillRect(0, y, W, PH);
		grid(y, PH);
		if (e >= v0 && s <= v1) {
			x0 = Math.max(LW, x0);
			x1 = Math.min(LW + cols(), x1);
			ctx.fillStyle = C.bar;
			ctx.fillRect(x0, y + 3, Math.max(1, x1 - x0), PH - 6);
		}
		if (pev[q])
			drawOps(pev[q], y, PH, y + 3, PH - 6);
		ctx.fillStyle = odd ? '#fbfbfb' : '#fff';
		ctx.fillRect(0, y, LW - 2, PH);
		ctx.font = '11px ui-monospace, monospace';
		ctx.fillStyle = P[q * PS + 8] ? C.deny : C.dim;
		ctx.fillText(clipText(P[q * PS] + ' ' + pname(q) + ' ' + S[P[q * PS + 9]], LW - 26 - PAD), 26, y + PH / 2);
		ctx.font = '12px system-ui, sans-serif';
	}

	function rowAtY(y) {
		var top = view.scrollTop + y - AX, lo = 0, hi = rows.length, m;
		if (y < AX)
			return null;
		while (lo < hi) {
			m = (lo + hi) >> 1;
			if (rows[m].y + rows[m].h <= top)
				lo = m + 1;
			else
				hi = m;
		}
		return lo < rows.length && rows[lo].y <= top ? rows[lo] : null;
	}

	function draw() {
		var dpr = window.devicePixelRatio || 1, k, r, y, t, x;
		W = Math.max(LW + 120, view.clientWidth);
		if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
			cv.width = Math.round(W * dpr);
			cv.height = Math.round(H * dpr);
			cv.style.width = W + 'px';
		}
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, W, H);
		ctx.textBaseline = 'middle';
		ctx.font = '12px system-ui, sans-serif';
		var step = nice((v1 - v0) / Math.max(2, cols() / 110));
		ticks = [];
		for (t = Math.ceil(v0 / step) * step, k = 0; t <= v1 && k < 100; k++, t = (Math.ceil(v0 / step) + k) * step)
			ticks.push(t);
		var top = view.scrollTop, labels = [];
		marks = 0;
		ctx.save();
		ctx.beginPath();
		ctx.rect(0, AX, W, H - AX);
		ctx.clip();
		var lo = 0, hi = rows.length, m;
		while (lo < hi) {
			m = (lo + hi) >> 1;
			if (rows[m].y + rows[m].h <= top)
				lo = m + 1;
			else
				hi = m;
		}
		var drawn = 0;
		for (k = lo; k < rows.length && rows[k].y - top < H - AX; k++) {
			r = rows[k];
			y = AX + r.y - top;
			if (r.p < 0) {
				drawGroup(r.g, y);
				labels.push(r.g.label + ' \u00d7' + r.g.procs.length + (r.g.den ? ', ' + r.g.den + ' denied' : ''));
			} else {
				drawProc(r.p, y, k % 2);
				labels.push('process ' + P[r.p * PS] + ' ' + pname(r.p) + (P[r.p * PS + 8] ? ', ' +
					P[r.p * PS + 8] + ' denied' : ''));
			}
			drawn++;
		}
		if (!rows.length) {
			ctx.fillStyle = C.dim;
			ctx.fillText('no processes in this trace', 8, AX + GH / 2);
		}
		ctx.fillStyle = C.line;
		ctx.fillRect(LW - 1, AX, 1, H - AX);
		ctx.restore();
		/* the axis */
		ctx.fillStyle = C.axis;
		ctx.fillRect(0, 0, W, AX);
		ctx.fillStyle = C.line;
		ctx.fillRect(0, AX - 1, W, 1);
		ctx.fillStyle = C.dim;
		ctx.fillText(clipText(plural(groups.length, 'lane') + ' by ' + (mode === 'program' ? 'program' :
			'parent') + ', ' + plural(NP, 'process'), LW - 12), 6, AX / 2);
		for (k = 0; k < ticks.length; k++) {
			x = Math.floor(X(ticks[k]));
			ctx.fillStyle = C.line;
			ctx.fillRect(x, AX - 7, 1, 6);
			ctx.fillStyle = C.text;
			if (x + 4 < LW + cols() - 30)
				ctx.fillText(fmtT(ticks[k], step), x + 3, AX / 2 - 2);
		}
		if (brush) {
			ctx.fillStyle = C.brush;
			ctx.fillRect(Math.min(brush[0], brush[1]), 0, Math.abs(brush[1] - brush[0]), H);
		}
		cv.setAttribute('data-lanes', drawn);
		cv.setAttribute('data-groups', groups.length);
		cv.setAttribute('data-marks', marks);
		cv.setAttribute('data-window', Math.round(v0) + ' ' + Math.round(v1));
		/* the lanes in view, as text for screen readers and for the tests */
		while (lanesEl.firstChild)
			lanesEl.removeChild(lanesEl.firstChild);
		labels.forEach(function (l) {
			var li = document.createElement('li');
			li.textContent = l;
			lanesEl.appendChild(li);
		});
		var drawnOps = NE, allOps = D.seen[0] + D.seen[1] + D.seen[2] + D.seen[3];
		info.textContent = 'showing ' + fmtT(v0, step / 10) + ' to ' + fmtT(v1, step / 10) + ' of ' +
			fmtT(SPAN, 1000).slice(1) + '; ' + plural(drawnOps, 'operation') +
			(allOps > drawnOps ? ' drawn of ' + num(allOps) : '');
	}

	function setWin(a, b) {
		var w = b - a, minw = Math.min(SPAN, 2);
		if (!(w >= minw)) {
			var mid = (a + b) / 2;
			a = mid - minw / 2;
			b = mid + minw / 2;
			w = minw;
		}
		if (w > SPAN) {
			a = 0;
			b = SPAN;
		}
		if (a < 0) {
			b -= a;
			a = 0;
		}
		if (b > SPAN) {
			a -= b - SPAN;
			b = SPAN;
		}
		v0 = Math.max(0, a);
		v1 = Math.min(SPAN, b);
		draw();
	}

	function zoom(f, x) {
		var t = x >= LW ? tAt(x) : (v0 + v1) / 2;
		setWin(t - (t - v0) * f, t + (v1 - t) * f);
	}

	function pos(ev) {
		var b = cv.getBoundingClientRect();
		return [ev.clientX - b.left, ev.clientY - b.top];
	}

	/* ---- hover ---- */

	function procHead(q) {
		var par = P[q * PS + 1];
		return 'process     ' + P[q * PS] + (par >= 0 ? '  (parent ' + P[par * PS] + ', ' + pname(par) + ')' : '');
	}

	function evLines(k) {
		var o = k * ES, q = E[o + 1], f = E[o + 6];
		return {
			head: fmtT(E[o]) + '  ' + S[E[o + 2]] + '  ' + (f & F_DENY ? 'DENIED' : f & F_FLAG ?
				'allowed, flagged' : 'allowed'),
			deny: !!(f & F_DENY),
			lines: [procHead(q), 'program     ' + S[P[q * PS + 2]], 'argv        ' + S[P[q * PS + 3]],
				'syscall     ' + S[E[o + 2]], 'capability  ' + (S[E[o + 3]] || '(none needed)'),
				'scope       ' + S[E[o + 4]],
				'decision    ' + S[E[o + 5]] + (f & F_UNENF ? ' (not enforced: observe)' : ''),
				'rule        ' + S[E[o + 7]]]
		};
	}

	function procLines(q) {
		var e = P[q * PS + 5], s = pstart(q);
		return {
			head: pname(q) + ' (pid ' + P[q * PS] + ')', deny: P[q * PS + 8] > 0,
			lines: [procHead(q), 'program     ' + S[P[q * PS + 2]], 'argv        ' + S[P[q * PS + 3]],
				'lifetime    ' + fmtT(s) + ' to ' + (e < 0 ? 'the end' : fmtT(e)) + ' (' +
					((pend(q) - s) / 1e6).toFixed(6) + ' s)',
				'end         ' + S[P[q * PS + 6]],
				'operations  ' + num(P[q * PS + 7]) + ', ' + num(P[q * PS + 8]) + ' denied']
		};
	}

	function groupLines(g, t) {
		var l = [g.full, plural(g.procs.length, 'process') + ', ' + plural(g.ops, 'operation') + ', ' +
			num(g.den) + ' denied', 'from ' + fmtT(g.t0) + ' to ' + fmtT(g.t1)];
		if (t >= 0) {
			var n = 0;
			for (var k = 0; k < g.procs.length; k++)
				if (pstart(g.procs[k]) <= t && pend(g.procs[k]) >= t)
					n++;
			l.push('at ' + fmtT(t) + ': ' + num(n) + ' running');
		}
		l.push('click to ' + (open[g.key] ? 'fold it' : 'list its processes'));
		return { head: g.label, deny: g.den > 0, lines: l };
	}

	/* the operation of LIST nearest to T within 5 pixels; denials first */
	function nearest(list, t) {
		var tol = 5 * (v1 - v0) / cols(), k = lower(list, t - tol), best = -1, bd = Infinity, bden = false;
		for (; k < list.length && E[list[k] * ES] <= t + tol; k++) {
			var d = Math.abs(E[list[k] * ES] - t), den = !!(E[list[k] * ES + 6] & (F_DENY | F_FLAG));
			if ((den && !bden) || (den === bden && d < bd)) {
				best = list[k];
				bd = d;
				bden = den;
			}
		}
		return best;
	}

	function hide() { tip.hidden = true; }

	function hover(x, y) {
		var r = rowAtY(y), c;
		if (!r || x < 0 || x > W) {
			hide();
			return;
		}
		if (x >= LW) {
			var t = tAt(x), k = nearest(r.p < 0 ? gev(r.g) : (pev[r.p] || []), t);
			c = k >= 0 ? evLines(k) : r.p >= 0 ? procLines(r.p) : groupLines(r.g, t);
		} else
			c = r.p >= 0 ? procLines(r.p) : groupLines(r.g, -1);
		while (tip.firstChild)
			tip.removeChild(tip.firstChild);
		var h = document.createElement('b');
		h.textContent = c.head;
		if (c.deny)
			h.className = 'deny';
		tip.appendChild(h);
		c.lines.forEach(function (l) {
			var dv = document.createElement('div');
			dv.textContent = l;
			tip.appendChild(dv);
		});
		tip.hidden = false;
		var left = x + 16;
		if (left + tip.offsetWidth > W)
			left = Math.max(0, x - 16 - tip.offsetWidth);
		tip.style.left = left + 'px';
		tip.style.top = Math.min(y + 16, Math.max(0, H - 10)) + 'px';
	}

	/* ---- input ---- */

	cv.addEventListener('wheel', function (ev) {
		var a = pos(ev);
		if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
			var sh = ev.deltaX / cols() * (v1 - v0);
			setWin(v0 + sh, v1 + sh);
			ev.preventDefault();
		} else if (ev.ctrlKey || a[1] < AX) {
			zoom(Math.exp(Math.max(-3, Math.min(3, ev.deltaY * 0.002))), a[0]);
			ev.preventDefault();
		}
	}, { passive: false });
	cv.addEventListener('mousedown', function (ev) {
		if (ev.button !== 0)
			return;
		var a = pos(ev);
		drag = { x: a[0], y: a[1], v0: v0, v1: v1, axis: a[1] < AX, moved: false };
		ev.preventDefault();
		cv.focus();
	});
	window.addEventListener('mousemove', function (ev) {
		var a = pos(ev);
		if (!drag) {
			if (ev.target === cv)
				hover(a[0], a[1]);
			return;
		}
		if (Math.abs(a[0] - drag.x) > 3)
			drag.moved = true;
		if (!drag.moved)
			return;
		hide();
		if (drag.axis) {
			brush = [Math.max(LW, drag.x), Math.max(LW, a[0])];
			draw();
		} else {
			var sh = -(a[0] - drag.x) / cols() * (drag.v1 - drag.v0);
			setWin(drag.v0 + sh, drag.v1 + sh);
		}
	});
	window.addEventListener('mouseup', function (ev) {
		if (!drag)
			return;
		var a = pos(ev), d = drag;
		drag = null;
		if (d.axis && d.moved && brush) {
			var b0 = Math.min(brush[0], brush[1]), b1 = Math.max(brush[0], brush[1]);
			brush = null;
			if (b1 - b0 > 3)
				setWin(tAt(b0), tAt(b1));
			else
				draw();
		} else if (!d.moved) {
			var r = rowAtY(a[1]);
			if (r && r.p < 0) {
				open[r.g.key] = !open[r.g.key];
				layout();
				hover(a[0], a[1]);
			}
		}
	});
	cv.addEventListener('mouseleave', function () { if (!drag) hide(); });
	cv.addEventListener('dblclick', function () { setWin(0, SPAN); });
	cv.addEventListener('keydown', function (ev) {
		var w = v1 - v0;
		if (ev.key === '+' || ev.key === '=')
			zoom(0.5, -1);
		else if (ev.key === '-')
			zoom(2, -1);
		else if (ev.key === '0')
			setWin(0, SPAN);
		else if (ev.key === 'ArrowLeft')
			setWin(v0 - w / 10, v1 - w / 10);
		else if (ev.key === 'ArrowRight')
			setWin(v0 + w / 10, v1 + w / 10);
		else
			return;
		ev.preventDefault();
	});
	view.addEventListener('scroll', function () { hide(); draw(); });
	window.addEventListener('resize', draw);
	document.getElementById('tlzi').addEventListener('click', function () { zoom(0.5, -1); });
	document.getElementById('tlzo').addEventListener('click', function () { zoom(2, -1); });
	document.getElementById('tlfit').addEventListener('click', function () { setWin(0, SPAN); });
	document.getElementById('tlexp').addEventListener('click', function () {
		groups.forEach(function (g) { open[g.key] = true; });
		layout();
	});
	document.getElementById('tlcol').addEventListener('click', function () {
		open = {};
		layout();
	});
	by.addEventListener('change', function () {
		mode = by.value === 'parent' ? 'parent' : 'program';
		open = {};
		build();
		layout();
	});
	build();
	layout();
})();
