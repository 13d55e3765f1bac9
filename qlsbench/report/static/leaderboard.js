// The qlsbench leaderboard page's script: sortable tables, the filters, the per-system drill-down and the plots.
// Plain JavaScript drawing inline SVG, written for this page and inlined into it: nothing is fetched, so the page
// reads the same from a file:// URL offline. The plots are drawn from the JSON in <script id="plot-data">
// (qlsbench/report/_page_data.py) and redrawn whenever a filter changes.
(function () {
  'use strict';
  const SVG = 'http://www.w3.org/2000/svg';
  const W = 640, H = 380, M = {left: 62, right: 16, top: 30, bottom: 48};
  const hidden = new Set();  // solvers switched off in the legend
  let DATA = null;

  // ------------------------------------------------------------------ tables

  function cellValue(td) {
    const v = td.getAttribute('data-value');
    if (v !== null && v !== '' && !isNaN(Number(v))) return Number(v);
    return td.textContent.trim().toLowerCase();
  }

  function sortTable(th) {
    const table = th.closest('table');
    const tbody = table.tBodies[0];
    const index = Array.prototype.indexOf.call(th.parentNode.children, th);
    const ascending = th.getAttribute('aria-sort') !== 'ascending';
    table.querySelectorAll('th').forEach(h => h.removeAttribute('aria-sort'));
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    const missing = v => v === '\u2014';
    const rows = Array.from(tbody.rows);
    rows.sort((a, b) => {
      const x = cellValue(a.cells[index]), y = cellValue(b.cells[index]);
      if (missing(x) && !missing(y)) return 1;
      if (missing(y) && !missing(x)) return -1;
      if (x < y) return ascending ? -1 : 1;
      if (x > y) return ascending ? 1 : -1;
      return 0;
    });
    rows.forEach(r => tbody.appendChild(r));
  }

  // ------------------------------------------------------------------ filters

  function value(id, fallback) {
    const el = document.getElementById(id);
    return el ? el.value : fallback;
  }

  function currentView() {
    return {track: value('f-track', 'exact'), group: value('f-group', 'all'), band: value('f-band', 'all')};
  }

  function inView(group, band, v) {
    return (v.group === 'all' || group === v.group) && (v.band === 'all' || band === v.band);
  }

  function applyFilters() {
    const v = currentView();
    document.querySelectorAll('.track').forEach(div => { div.hidden = div.dataset.track !== v.track; });
    document.querySelectorAll('.track tbody tr').forEach(tr => {
      tr.hidden = !(tr.dataset.group === v.group && tr.dataset.band === v.band);
    });
    document.querySelectorAll('.track').forEach(div => {
      const shown = div.querySelectorAll('tbody tr:not([hidden])').length;
      div.querySelector('.count').textContent = shown + ' solver(s) ran a system here';
    });
    filterDrilldown(v);
    drawPlots(v);
  }

  // ------------------------------------------------------------------ drill-down

  function filterDrilldown(v) {
    const unsolvedOnly = document.getElementById('f-unsolved');
    const only = unsolvedOnly && unsolvedOnly.checked;
    document.querySelectorAll('.drill').forEach(details => {
      let shown = 0;
      details.querySelectorAll('tbody tr').forEach(tr => {
        const solved = Number(tr.getAttribute('data-' + v.track));
        tr.hidden = !(inView(tr.dataset.group, tr.dataset.band, v) && !(only && solved >= 1));
        tr.classList.toggle('unsolved', solved < 1);
        if (!tr.hidden) shown += 1;
      });
      const count = details.querySelector('.shown');
      if (count) count.textContent = shown + ' shown';
    });
  }

  function openDrilldown(id) {
    const details = document.getElementById(id);
    if (!details || !details.classList.contains('drill')) return;
    details.open = true;
    details.scrollIntoView({block: 'start'});
  }

  // ------------------------------------------------------------------ plot data

  // The per-system records of a view: "all" counts a system once; a group's are that group's (dataset or family).
  function records(v) {
    const source = (v.group === 'all' || !DATA.groups) ? DATA.all : DATA.groups;
    const out = [];
    for (let i = 0; i < source.solver.length; i++) {
      if (inView(source.group[i], source.band[i], v)) out.push(i);
    }
    return {source: source, rows: out};
  }

  function bySolver(rows, source) {
    const map = new Map();
    rows.forEach(i => {
      const s = source.solver[i];
      if (!map.has(s)) map.set(s, []);
      map.get(s).push(i);
    });
    return map;
  }

  // Dolan-More: per solver, the sorted ratios of its time to the fastest successful time on each system
  // (Infinity where it did not succeed); the share within tau is the count of ratios <= tau over its systems.
  function profileSeries(v) {
    const {source, rows} = records(v);
    const success = source.success[v.track], time = source.time[v.track];
    const best = new Map();
    rows.forEach(i => {
      if (success[i] >= 0.5) {
        const k = source.system[i];
        best.set(k, Math.min(best.has(k) ? best.get(k) : Infinity, time[i]));
      }
    });
    const series = [];
    bySolver(rows, source).forEach((idx, s) => {
      const ratios = idx.map(i => (success[i] >= 0.5 ? time[i] / best.get(source.system[i]) : Infinity));
      ratios.sort((a, b) => a - b);
      series.push({solver: s, ratios: ratios, n: ratios.length});
    });
    return series;
  }

  function shareWithin(series, tau) {
    let k = 0;
    while (k < series.ratios.length && series.ratios[k] <= tau) k++;
    return k / series.n;
  }

  // Success rate (mean over systems of the share of repeats solved) per qubit count.
  function qubitSeries(v) {
    const {source, rows} = records(v);
    const success = source.success[v.track];
    const series = [];
    bySolver(rows, source).forEach((idx, s) => {
      const sums = new Map();
      idx.forEach(i => {
        const n = source.n_qubits[i];
        if (n === null) return;
        const acc = sums.get(n) || [0, 0];
        sums.set(n, [acc[0] + success[i], acc[1] + 1]);
      });
      const points = Array.from(sums.keys()).sort((a, b) => a - b).map(n => [n, sums.get(n)[0] / sums.get(n)[1]]);
      series.push({solver: s, points: points});
    });
    return series;
  }

  function fidelitySeries(v) {
    const {source, rows} = records(v);
    const series = [];
    bySolver(rows, source).forEach((idx, s) => {
      const points = idx.filter(i => source.solves[i] > 0 && source.cond[i] > 0 && source.fidelity[i] !== null)
        .map(i => [source.cond[i], Math.max(1 - source.fidelity[i], 0) + 1e-16, source.system[i]]);  // F may be 1 + ulp
      series.push({solver: s, points: points});
    });
    return series;
  }

  // A solve's verdict at budget b from its change points [k1, s1, k2, s2, ...] (unsolved before k1).
  function verdict(steps, b) {
    let state = 0;
    for (let j = 0; j < steps.length && steps[j] <= b; j += 2) state = steps[j + 1];
    return state;
  }

  function median(values) {
    const s = values.slice().sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  // Share of systems solved against budget per solver, best and median seed, as qlsbench's success_curve: the
  // view's solves (first of each system and seed), every budget at which any of them changes verdict.
  function budgetSeries(v) {
    if (!DATA.budget) return [];
    const b = DATA.budget.solves;
    const systems = new Map();  // solver -> system -> [steps of each seed]
    const seen = new Set();
    const budgets = new Set();
    for (let i = 0; i < b.solver.length; i++) {
      if (!inView(b.group[i], b.band[i], v)) continue;
      const key = b.solver[i] + '\u0000' + b.system[i] + '\u0000' + b.seed[i];
      if (seen.has(key)) continue;
      seen.add(key);
      if (!systems.has(b.solver[i])) systems.set(b.solver[i], new Map());
      const bySystem = systems.get(b.solver[i]);
      if (!bySystem.has(b.system[i])) bySystem.set(b.system[i], []);
      bySystem.get(b.system[i]).push(b.steps[i]);
      if (b.lo[i] !== null) { budgets.add(b.lo[i]); budgets.add(b.hi[i]); }
      for (let j = 0; j < b.steps[i].length; j += 2) budgets.add(b.steps[i][j]);
    }
    const xs = Array.from(budgets).sort((x, y) => x - y);
    const series = [];
    systems.forEach((bySystem, s) => {
      const best = [], med = [];
      let seeds = 0;
      bySystem.forEach(list => { seeds = Math.max(seeds, list.length); });
      xs.forEach(x => {
        let sumBest = 0, sumMedian = 0;
        bySystem.forEach(list => {
          const states = list.map(steps => verdict(steps, x));
          sumBest += Math.max.apply(null, states);
          sumMedian += median(states);
        });
        best.push(sumBest / bySystem.size);
        med.push(sumMedian / bySystem.size);
      });
      series.push({solver: s, budgets: xs, best: best, median: med, systems: bySystem.size, seeds: seeds});
    });
    return series;
  }

  // ------------------------------------------------------------------ drawing

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(k => node.setAttribute(k, attrs[k]));
    if (parent) parent.appendChild(node);
    return node;
  }

  // An SVG path of one marker shape centred on (x, y), r its half-size.
  function markerPath(shape, x, y, r) {
    const poly = pts => 'M' + pts.map(p => (x + p[0] * r).toFixed(1) + ',' + (y + p[1] * r).toFixed(1)).join('L') + 'Z';
    const star = (n, inner) => poly(Array.from({length: 2 * n}, (_, k) => {
      const a = Math.PI * k / n - Math.PI / 2, q = k % 2 ? inner : 1;
      return [q * Math.cos(a), q * Math.sin(a)];
    }));
    switch (shape) {
      case 'square': return poly([[-0.85, -0.85], [0.85, -0.85], [0.85, 0.85], [-0.85, 0.85]]);
      case 'triangle-up': return poly([[0, -1.1], [1, 0.8], [-1, 0.8]]);
      case 'triangle-down': return poly([[0, 1.1], [1, -0.8], [-1, -0.8]]);
      case 'triangle-left': return poly([[-1.1, 0], [0.8, -1], [0.8, 1]]);
      case 'triangle-right': return poly([[1.1, 0], [-0.8, -1], [-0.8, 1]]);
      case 'diamond': return poly([[0, -1.2], [0.85, 0], [0, 1.2], [-0.85, 0]]);
      case 'plus': return poly([[-0.35, -1], [0.35, -1], [0.35, -0.35], [1, -0.35], [1, 0.35], [0.35, 0.35],
        [0.35, 1], [-0.35, 1], [-0.35, 0.35], [-1, 0.35], [-1, -0.35], [-0.35, -0.35]]);
      case 'cross': return poly([[-1, -0.6], [-0.6, -1], [0, -0.4], [0.6, -1], [1, -0.6], [0.4, 0], [1, 0.6],
        [0.6, 1], [0, 0.4], [-0.6, 1], [-1, 0.6], [-0.4, 0]]);
      case 'star': return star(5, 0.45);
      case 'hexagon': return poly(Array.from({length: 6}, (_, k) => [Math.cos(Math.PI * k / 3 + Math.PI / 6),
        Math.sin(Math.PI * k / 3 + Math.PI / 6)]));
      case 'pentagon': return poly(Array.from({length: 5}, (_, k) => [Math.cos(2 * Math.PI * k / 5 - Math.PI / 2),
        Math.sin(2 * Math.PI * k / 5 - Math.PI / 2)]));
      case 'thin-diamond': return poly([[0, -1.2], [0.5, 0], [0, 1.2], [-0.5, 0]]);
      default: return 'M' + (x - r) + ',' + y + 'a' + r + ',' + r + ' 0 1,0 ' + 2 * r + ',0a' + r + ',' + r +
        ' 0 1,0 ' + (-2 * r) + ',0Z';
    }
  }

  function marker(svg, s, x, y, tip) {
    const style = DATA.styles[s];
    const node = el('path', {d: markerPath(style.marker, x, y, 4), fill: style.color, stroke: '#fff',
      'stroke-width': 0.6, 'class': 'marker', 'data-solver': DATA.solvers[s]}, svg);
    if (tip) el('title', {}, node).textContent = tip;
    return node;
  }

  function scale(lo, hi, a, b, log) {
    const f = log ? Math.log10 : (t => t);
    const l = f(lo), h = f(hi);
    return t => a + (b - a) * ((f(t) - l) / ((h - l) || 1));
  }

  function superscript(k) {
    const digits = '\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079';
    return (k < 0 ? '\u207b' : '') + String(Math.abs(k)).split('').map(d => digits[Number(d)]).join('');
  }

  function ticks(lo, hi, log, integer) {
    if (log) {
      const out = [];
      const a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
      const step = Math.max(1, Math.ceil((b - a) / 8));
      for (let k = a; k <= b; k += step) {
        const t = Math.pow(10, k);
        if (t >= lo * 0.999 && t <= hi * 1.001) out.push([t, '10' + superscript(k)]);
      }
      return out;
    }
    const span = hi - lo, raw = span / 6, mag = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    let step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw) || mag;
    if (integer) step = Math.max(1, Math.round(step));
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push([t, String(+t.toFixed(6))]);
    return out;
  }

  // Axes, ticks, grid and labels of one panel; returns the x and y scales.
  function frame(svg, o) {
    const x = scale(o.x[0], o.x[1], M.left, W - M.right, o.xlog);
    const y = scale(o.y[0], o.y[1], H - M.bottom, M.top, o.ylog);
    el('rect', {x: M.left, y: M.top, width: W - M.left - M.right, height: H - M.top - M.bottom, 'class': 'plot-area'},
       svg);
    ticks(o.x[0], o.x[1], o.xlog, o.xinteger).forEach(([t, label]) => {
      el('line', {x1: x(t), x2: x(t), y1: M.top, y2: H - M.bottom, 'class': 'grid'}, svg);
      el('text', {x: x(t), y: H - M.bottom + 16, 'text-anchor': 'middle', 'class': 'tick'}, svg).textContent = label;
    });
    ticks(o.y[0], o.y[1], o.ylog, false).forEach(([t, label]) => {
      el('line', {x1: M.left, x2: W - M.right, y1: y(t), y2: y(t), 'class': 'grid'}, svg);
      el('text', {x: M.left - 6, y: y(t) + 4, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = label;
    });
    el('text', {x: (M.left + W - M.right) / 2, y: H - 10, 'text-anchor': 'middle', 'class': 'axis-label'}, svg)
      .textContent = o.xlabel;
    el('text', {x: 14, y: (M.top + H - M.bottom) / 2, 'text-anchor': 'middle', 'class': 'axis-label',
      transform: 'rotate(-90 14 ' + (M.top + H - M.bottom) / 2 + ')'}, svg).textContent = o.ylabel;
    el('text', {x: M.left, y: 18, 'class': 'plot-title'}, svg).textContent = o.title;
    return {x: x, y: y};
  }

  function stepPath(points, sx, sy) {
    let d = '';
    points.forEach(([px, py], k) => {
      d += k === 0 ? 'M' + sx(px).toFixed(1) + ',' + sy(py).toFixed(1)
        : 'H' + sx(px).toFixed(1) + 'V' + sy(py).toFixed(1);
    });
    return d;
  }

  function clear(id) {
    const svg = document.getElementById(id);
    if (!svg) return null;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    return svg;
  }

  function emptyNote(svg, text) {
    el('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', 'class': 'empty'}, svg).textContent = text;
  }

  function drawProfile(v) {
    const svg = clear('plot-profile');
    if (!svg) return;
    const series = profileSeries(v).filter(s => !hidden.has(DATA.solvers[s.solver]));
    const finite = [].concat(...series.map(s => s.ratios.filter(r => isFinite(r))));
    const hi = Math.max(10, 2 * Math.max(1, ...finite));
    const f = frame(svg, {x: [1, hi], y: [0, 1], xlog: true, xlabel: '\u03c4 (time / the fastest successful time on ' +
      'the system)', ylabel: 'share of the solver\u2019s systems', title: 'Performance profile, ' + v.track + ' track'});
    if (!series.length) return emptyNote(svg, 'no solver in view');
    series.forEach(s => {
      const color = DATA.styles[s.solver].color;
      const points = [[1, shareWithin(s, 1)]];
      s.ratios.filter(r => isFinite(r) && r > 1).forEach(r => points.push([r, shareWithin(s, r)]));
      points.push([hi, shareWithin(s, hi)]);
      el('path', {d: stepPath(points, f.x, f.y), fill: 'none', stroke: color, 'stroke-width': 1.6,
        'class': 'series', 'data-solver': DATA.solvers[s.solver]}, svg);
      points.slice(0, -1).forEach(([px, py]) => marker(svg, s.solver, f.x(px), f.y(py),
        DATA.solvers[s.solver] + ': ' + (100 * py).toFixed(0) + ' % within \u03c4 = ' + px.toPrecision(3)));
    });
  }

  function drawQubits(v) {
    const svg = clear('plot-qubits');
    if (!svg) return;
    const series = qubitSeries(v).filter(s => !hidden.has(DATA.solvers[s.solver]) && s.points.length);
    const qubits = [].concat(...series.map(s => s.points.map(p => p[0])));
    const lo = qubits.length ? Math.min(...qubits) : 1, hi = qubits.length ? Math.max(...qubits) : 2;
    const f = frame(svg, {x: [lo - 0.3, hi + 0.3], y: [-0.02, 1.02], xinteger: true, xlabel: 'qubits',
      ylabel: 'success rate', title: 'Success rate against qubits, ' + v.track + ' track'});
    if (!series.length) return emptyNote(svg, 'no solver in view');
    series.forEach(s => {
      const color = DATA.styles[s.solver].color;
      const d = s.points.map(([n, r], k) => (k ? 'L' : 'M') + f.x(n).toFixed(1) + ',' + f.y(r).toFixed(1)).join('');
      el('path', {d: d, fill: 'none', stroke: color, 'stroke-width': 1.4, 'class': 'series',
        'data-solver': DATA.solvers[s.solver]}, svg);
      s.points.forEach(([n, r]) => marker(svg, s.solver, f.x(n), f.y(r),
        DATA.solvers[s.solver] + ': ' + r.toFixed(3) + ' at ' + n + ' qubits'));
    });
  }

  function drawFidelity(v) {
    const svg = clear('plot-fidelity');
    if (!svg) return;
    const series = fidelitySeries(v).filter(s => !hidden.has(DATA.solvers[s.solver]));
    const xs = [].concat(...series.map(s => s.points.map(p => p[0])));
    const ys = [].concat(...series.map(s => s.points.map(p => p[1])));
    const x0 = xs.length ? Math.min(...xs) / 2 : 1, x1 = xs.length ? Math.max(...xs) * 2 : 10;
    const y0 = Math.min(1e-16, ...ys) / 2, y1 = 2;
    const f = frame(svg, {x: [Math.min(x0, 0.5), x1], y: [y0, y1], xlog: true, ylog: true,
      xlabel: 'condition number \u03ba', ylabel: '1 \u2212 fidelity (median over repeats)',
      title: 'Infidelity against \u03ba (below the dashed line: fidelity bar met)'});
    const bar = 1 - DATA.fidelity_bar;
    el('line', {x1: M.left, x2: W - M.right, y1: f.y(bar), y2: f.y(bar), 'class': 'bar-line'}, svg);
    if (!series.length) return emptyNote(svg, 'no solver in view');
    series.forEach(s => s.points.forEach(([k, e, system]) => marker(svg, s.solver, f.x(k), f.y(e),
      DATA.solvers[s.solver] + ' on ' + system + ': 1 \u2212 F = ' + e.toPrecision(3) + ', \u03ba = ' + k.toPrecision(3))));
  }

  function drawBudget(v) {
    const svg = clear('plot-budget');
    if (!svg) return;
    const series = budgetSeries(v).filter(s => !hidden.has(DATA.solvers[s.solver]));
    const xs = [].concat(...series.map(s => s.budgets));
    const lo = xs.length ? Math.max(Math.min(...xs), 0.5) : 1, hi = xs.length ? Math.max(...xs) * 1.2 : 10;
    const f = frame(svg, {x: [lo, hi], y: [-0.02, 1.02], xlog: true, xlabel: DATA.budget ? DATA.budget.axis : '',
      ylabel: 'share of systems solved', title: 'Success against budget (variational bar); dashed: median seed'});
    if (!series.length) return emptyNote(svg, 'no variational solver in view');
    series.forEach(s => {
      const color = DATA.styles[s.solver].color, name = DATA.solvers[s.solver];
      const best = s.budgets.map((b, k) => [b, s.best[k]]).concat([[hi, s.best[s.best.length - 1]]]);
      el('path', {d: stepPath(best, f.x, f.y), fill: 'none', stroke: color, 'stroke-width': 1.6, 'class': 'series',
        'data-solver': name}, svg);
      if (s.seeds > 1) {
        const med = s.budgets.map((b, k) => [b, s.median[k]]).concat([[hi, s.median[s.median.length - 1]]]);
        el('path', {d: stepPath(med, f.x, f.y), fill: 'none', stroke: color, 'stroke-width': 1.2,
          'stroke-dasharray': '5 3', 'class': 'series', 'data-solver': name}, svg);
      }
      // a marker where the best seed's share changes (at most eight), so the solver reads without its colour
      const changes = s.best.map((r, k) => k).filter(k => k === 0 || s.best[k] !== s.best[k - 1]);
      const every = Math.max(1, Math.ceil(changes.length / 8));
      changes.filter((_, j) => j % every === 0).forEach(k => marker(svg, s.solver, f.x(s.budgets[k]), f.y(s.best[k]),
        name + ' (' + s.systems + ' systems, ' + s.seeds + ' seed(s)): ' + (100 * s.best[k]).toFixed(0) +
        ' % after ' + s.budgets[k] + ' evaluations'));
    });
  }

  function drawPlots(v) {
    if (!DATA) return;
    drawProfile(v);
    drawQubits(v);
    drawFidelity(v);
    drawBudget(v);
    const label = document.getElementById('plot-view');
    if (label) label.textContent = v.track + ' track, ' + (v.group === 'all' ? 'all groups' : v.group) + ', ' +
      (v.band === 'all' ? 'all qubit counts' : v.band + ' qubits');
  }

  // The legend is HTML beside the plots, never over them; a click hides or shows a solver in every plot.
  function buildLegend() {
    const legend = document.getElementById('plot-legend');
    if (!legend) return;
    DATA.solvers.forEach((name, s) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'legend-item';
      button.dataset.solver = name;
      const svg = el('svg', {width: 14, height: 14, viewBox: '0 0 14 14'}, button);
      el('path', {d: markerPath(DATA.styles[s].marker, 7, 7, 5), fill: DATA.styles[s].color}, svg);
      button.appendChild(document.createTextNode(name));
      button.addEventListener('click', () => {
        if (hidden.has(name)) hidden.delete(name); else hidden.add(name);
        button.classList.toggle('off', hidden.has(name));
        drawPlots(currentView());
      });
      legend.appendChild(button);
    });
  }

  // The colour and marker of a solver beside its name in the tables, as in the plots.
  function drawSwatches() {
    document.querySelectorAll('.swatch[data-solver]').forEach(span => {
      const s = DATA.solvers.indexOf(span.dataset.solver);
      if (s < 0 || span.firstChild) return;
      const svg = el('svg', {width: 12, height: 12, viewBox: '0 0 12 12', 'aria-hidden': 'true'}, span);
      el('path', {d: markerPath(DATA.styles[s].marker, 6, 6, 4.5), fill: DATA.styles[s].color}, svg);
    });
  }

  document.addEventListener('DOMContentLoaded', () => {
    const data = document.getElementById('plot-data');
    DATA = data ? JSON.parse(data.textContent) : null;
    if (DATA) { buildLegend(); drawSwatches(); }
    document.querySelectorAll('th').forEach(th => th.addEventListener('click', () => sortTable(th)));
    document.querySelectorAll('.filters select, #f-unsolved').forEach(s => s.addEventListener('change', applyFilters));
    document.querySelectorAll('a.drill-link').forEach(a => a.addEventListener('click', () => {
      openDrilldown(a.getAttribute('href').slice(1));
    }));
    window.addEventListener('hashchange', () => openDrilldown(location.hash.slice(1)));
    applyFilters();
    if (location.hash) openDrilldown(location.hash.slice(1));
  });

  // For the page's tests: the series the plots draw, computed for a view.
  window.qlsbenchPlots = {profileSeries: profileSeries, shareWithin: shareWithin, qubitSeries: qubitSeries,
    budgetSeries: budgetSeries, fidelitySeries: fidelitySeries, currentView: currentView};
})();
