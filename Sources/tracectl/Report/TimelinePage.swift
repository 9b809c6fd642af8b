import Foundation

/// The timeline page: one HTML file with its data, style and script inline, nothing fetched.
///
/// A canvas draws the lanes; only what is in view is drawn, and marks closer than a pixel
/// are drawn once, shaded by how many they stand for, so a million events stay responsive.
/// `window.timeline` reports what the last frame drew, for tests.
enum TimelinePage {
    /// Writes the page into `out`, streamed, with the JSON of ``TimelineData`` that `data` writes
    /// embedded: neither the page nor its data is held as one string.
    static func write(title: String, to out: Output, data: (ScriptData) -> Void) {
        out.write(head.replacingOccurrences(of: "{{TITLE}}", with: escape(title)))
        data(ScriptData(out))
        out.write(tail)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static let head = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Timeline: {{TITLE}}</title>
<style>
  :root { --fg: #1d1d1f; --muted: #6e6e73; --line: #e3e3e8; --bg: #fff; --panel: #f6f6f8; }
  * { box-sizing: border-box; }
  html, body { margin: 0; height: 100%; font: 12px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
  body { display: grid; grid-template-rows: auto minmax(0, 1fr); grid-template-columns: minmax(0, 1fr) 340px; height: 100vh; }
  header { grid-column: 1 / 3; display: flex; gap: 12px; align-items: center; padding: 6px 10px; border-bottom: 1px solid var(--line); }
  header h1 { font-size: 14px; margin: 0; font-weight: 600; }
  header .range { color: var(--muted); font-variant-numeric: tabular-nums; }
  header button { font: inherit; padding: 2px 8px; border: 1px solid #c7c7cc; background: #fff; border-radius: 4px; cursor: pointer; }
  .legend { display: flex; gap: 10px; margin-left: auto; color: var(--muted); flex-wrap: wrap; }
  .legend i { display: inline-block; width: 12px; height: 8px; margin-right: 3px; vertical-align: middle; }
  #plot { position: relative; overflow: hidden; }
  canvas { display: block; cursor: grab; }
  canvas.dragging { cursor: grabbing; }
  aside { border-left: 1px solid var(--line); background: var(--panel); overflow: auto; padding: 8px 10px; }
  aside h2 { font-size: 12px; margin: 10px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
  .group { margin-bottom: 10px; }
  .group .site { font-weight: 600; word-break: break-all; }
  .finding { padding: 3px 6px; margin: 2px 0; border-radius: 4px; cursor: pointer; border-left: 3px solid transparent; }
  .finding:hover, .finding.selected { background: #e8e8ed; }
  .sev { font-weight: 600; text-transform: uppercase; font-size: 10px; }
  .error { color: #c62828; } .warning { color: #b26a00; } .note { color: #1565c0; }
  .finding.error { border-color: #d32f2f; } .finding.warning { border-color: #f29900; } .finding.note { border-color: #1e88e5; }
  #details { white-space: pre-wrap; background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: 6px; min-height: 3em; }
  #tip { position: absolute; pointer-events: none; background: rgba(29,29,31,.94); color: #fff; padding: 5px 7px; border-radius: 4px; max-width: 420px; white-space: pre-wrap; display: none; z-index: 2; }
  .help { color: var(--muted); }
</style>
</head>
<body>
<header>
  <h1>{{TITLE}}</h1>
  <button id="zoomIn" title="Zoom in (+)">+</button><button id="zoomOut" title="Zoom out (-)">−</button><button id="fit" title="Show everything (0)">Fit</button>
  <span class="range" id="range"></span>
  <span class="legend">
    <span><i style="background:#a5d6a7"></i>visible</span><span><i style="background:#e0e0e0"></i>in hierarchy</span>
    <span><i style="background:#5c8ee6"></i>token</span><span><i style="background:#9c6ade"></i>block</span><span><i style="background:#26a69a"></i>selector</span>
    <span><i style="background:#ef9a9a"></i>registered after owner gone</span>
    <span><i style="background:#333"></i>delivery</span><span><i style="background:#f29900"></i>skipped</span><span><i style="background:#d32f2f"></i>trapped</span>
    <span>▼ finding</span>
  </span>
</header>
<div id="plot"><canvas id="canvas"></canvas><div id="tip"></div></div>
<aside>
  <h2>Findings</h2><div id="findings"></div>
  <h2>Selected</h2><div id="details" class="help">Hover a mark for its text; click it to keep it here.
Drag to pan, Ctrl+wheel (or +/−) to zoom, wheel to scroll lanes.</div>
</aside>
<script type="application/json" id="data">
"""#

    private static let tail = #"""
</script>
<script>
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const canvas = document.getElementById("canvas"), ctx = canvas.getContext("2d");
  const plot = document.getElementById("plot"), tip = document.getElementById("tip");
  const details = document.getElementById("details");
  const GUTTER = 250, AXIS = 22, STEPS = 18, POSTS = 26, HEADER = 16, ROW = 11, PAD = 6;
  const KIND = { token: "#5c8ee6", block: "#9c6ade", selector: "#26a69a" };
  const OUTCOME = ["#333333", "#f29900", "#d32f2f"], OUTCOME_NAME = ["delivered", "skipped", "trapped"];
  const SEV = { error: "#d32f2f", warning: "#f29900", note: "#1e88e5" };

  // Columns into objects; strings are indexes into D.strings.
  const str = i => i >= 0 ? D.strings[i] : null;
  const O = D.observers;
  D.observers = O.id.map((id, i) => ({ id, lane: O.lane[i], row: O.row[i], message: O.message[i], site: str(O.site[i]),
    kind: str(O.kind[i]), capture: str(O.capture[i]), start: O.start[i], end: O.end[i], ending: str(O.ending[i]),
    open: O.open[i] === 1 }));
  for (const g of D.groups) {
    const F = g.findings;
    g.findings = F.seq.map((seq, i) => {
      const rule = str(F.rule[i]);
      return { rule, severity: D.rules[rule].severity, fingerprint: str(F.fingerprint[i]), message: str(F.message[i]),
        owner: str(F.owner[i]), seq, lane: F.lane[i], observer: F.observer[i], text: F.text[i] };
    });
  }

  // Lanes, with a last one for observers without a shown owner.
  const lanes = D.lanes.map(l => Object.assign({}, l, { rows: Math.max(l.rows, 0) }));
  const orphans = D.observers.filter(o => o.lane < 0);
  if (orphans.length) {
    const rows = 1 + Math.max(...orphans.map(o => o.row));
    lanes.push({ label: "(no owner)", type: "", depth: 0, screen: false, rows, visible: [], hierarchy: [], gone: null, released: false });
    orphans.forEach(o => { o.lane = lanes.length - 1; });
  }
  let y = 0;
  for (const lane of lanes) { lane.y = y; lane.h = HEADER + lane.rows * ROW + PAD; y += lane.h; }
  const totalHeight = y;

  // Observers per lane, and deliveries per observer, sorted by seq (the log's order).
  const byLane = lanes.map(() => []);
  D.observers.forEach((o, i) => { o.index = i; byLane[o.lane].push(o); });
  const perObserver = D.observers.map(() => []);
  const dl = D.deliveries;
  for (let i = 0; i < dl.length; i += 4) perObserver[dl[i + 1]].push(i);
  // Steps as [seq, label] pairs, in order.
  const steps = (D.steps || []).map(s => ({ seq: s[0], label: s[1] }));
  const postSeqs = [];
  for (let i = 0; i < D.posts.length; i += 3) postSeqs.push(D.posts[i]);
  const findings = [];
  D.groups.forEach(g => g.findings.forEach(f => { f.group = g; findings.push(f); }));

  const start = D.start, end = Math.max(D.end, start + 1);
  let v0 = start, v1 = end, scrollY = 0, width = 0, height = 0, hits = [], selected = null;
  const drawn = { lanes: [], findings: 0, observers: 0, deliveries: 0, posts: 0, visible: 0, aggregated: false, steps: [], rowLabels: [] };

  function resize() {
    const r = plot.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    width = Math.max(300, r.width); height = Math.max(200, r.height);
    canvas.width = width * dpr; canvas.height = height * dpr;
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw();
  }
  const plotW = () => width - GUTTER - 8;
  const X = s => GUTTER + (s - v0) / (v1 - v0) * plotW();
  const S = x => v0 + (x - GUTTER) / plotW() * (v1 - v0);
  const top = () => AXIS + STEPS + POSTS;

  // First index in a sorted array (of seqs, or of `key(i)`) with value >= s.
  function lower(n, key, s) { let lo = 0, hi = n; while (lo < hi) { const m = (lo + hi) >> 1; if (key(m) < s) lo = m + 1; else hi = m; } return lo; }
  function hue(i) { return "hsl(" + ((i * 137.5) % 360) + ",55%,45%)"; }
  const msg = i => i >= 0 ? D.messages[i] : "every message";

  function draw() {
    hits = [];
    Object.assign(drawn, { lanes: [], findings: 0, observers: 0, deliveries: 0, posts: 0, visible: 0, aggregated: false, steps: [], rowLabels: [] });
    ctx.clearRect(0, 0, width, height);
    ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle";
    const px = (v1 - v0) / plotW();  // seqs per pixel
    // Lanes, clipped below the fixed axis and posts strip.
    ctx.save(); ctx.beginPath(); ctx.rect(0, top(), width, height - top()); ctx.clip();
    const first = lower(lanes.length, i => lanes[i].y + lanes[i].h, scrollY);
    for (let li = first; li < lanes.length; li++) {
      const lane = lanes[li], ly = top() + lane.y - scrollY;
      if (ly > height) break;
      drawn.lanes.push(lane.label);
      if (li % 2) { ctx.fillStyle = "#fafafc"; ctx.fillRect(0, ly, width, lane.h); }
      ctx.fillStyle = "#1d1d1f"; ctx.font = (lane.screen ? "600 " : "") + "11px system-ui, sans-serif";
      const indent = 8 + lane.depth * 16, name = (lane.depth ? "↳ " : "") + lane.label;
      ctx.fillText(name, indent, ly + HEADER / 2 + 1, GUTTER - indent - 6);
      // The owner's type after its label, on the same line: the rows beneath are the observers'.
      const nameW = Math.min(ctx.measureText(name).width, GUTTER - indent - 6);
      if (lane.type && lane.type !== lane.label && indent + nameW + 30 < GUTTER - 6) {
        ctx.fillStyle = "#8e8e93"; ctx.font = "10px system-ui, sans-serif";
        ctx.fillText(lane.type, indent + nameW + 6, ly + HEADER / 2 + 1, GUTTER - indent - nameW - 12);
      }
      bars(lane.hierarchy, ly + 3, HEADER - 6, "#e0e0e0", lane, "in the hierarchy");
      bars(lane.visible, ly + 3, HEADER - 6, "#a5d6a7", lane, "visible", true);
      if (lane.gone != null && lane.gone >= v0 && lane.gone <= v1) {
        const gx = X(lane.gone);
        ctx.fillStyle = "#555"; ctx.fillRect(gx - 0.5, ly + 1, 1.5, lane.h - PAD);
        hit(gx - 3, ly, gx + 3, ly + lane.h, lane.label + (lane.released ? " released" : " left the hierarchy") + " at seq " + lane.gone);
      }
      const painted = new Array(lane.rows).fill(-Infinity), ticks = new Array(lane.rows).fill(-1);
      const shown = new Array(lane.rows).fill(null), more = new Array(lane.rows).fill(0);
      for (const o of byLane[li]) if (drawObserver(o, lane, ly, px, painted, ticks)) { if (shown[o.row]) more[o.row]++; else shown[o.row] = o; }
      rowLabels(lane, ly, shown, more);
      ctx.strokeStyle = "#ececf0"; ctx.beginPath(); ctx.moveTo(0, ly + lane.h - 0.5); ctx.lineTo(width, ly + lane.h - 0.5); ctx.stroke();
    }
    drawStepLines();
    drawFindings();
    ctx.restore();
    drawAxis(); drawSteps(); drawPosts(px);
    ctx.fillStyle = "#e3e3e8"; ctx.fillRect(GUTTER - 4, 0, 1, height);
    document.getElementById("range").textContent = "seq " + Math.floor(v0) + "–" + Math.ceil(v1) + " of " + D.end;
    window.timeline = { ready: true, drawn: JSON.parse(JSON.stringify(drawn)), lanes: lanes.map(l => ({ label: l.label, depth: l.depth, screen: l.screen })),
      findings: findings.length, listed, steps: steps.length, markers: hits.filter(h => h.finding).map(h => ({ x: (h.x0 + h.x1) / 2, y: (h.y0 + h.y1) / 2, rule: h.finding.rule })),
      view: [v0, v1] };
  }

  function hit(x0, y0, x1, y1, text, finding) { hits.push({ x0, y0, x1, y1, text, finding }); }

  // Intervals in start order; one that falls within pixels already painted is counted, not drawn again.
  function bars(flat, by, bh, color, lane, what, count) {
    ctx.fillStyle = color;
    let painted = -Infinity;
    for (let i = 0; i < flat.length; i += 2) {
      const s = flat[i], e = flat[i + 1];
      if (e < v0 || s > v1) continue;
      if (count) drawn.visible++;
      const x0 = Math.max(GUTTER, Math.floor(X(s))), x1 = Math.min(width, Math.max(Math.ceil(X(e)), x0 + 1));
      if (x1 <= painted) { drawn.aggregated = true; continue; }
      const from = Math.max(x0, painted);
      ctx.fillRect(from, by, x1 - from, bh);
      painted = x1;
      const text = lane.label + " " + what + " from seq " + s + " to " + e;
      hit(x0, by, x1, by + bh, text);
    }
  }

  // Each row's label in the gutter: the message and kind of its first observer in view, and how many more.
  function rowLabels(lane, ly, shown, more) {
    const x = 8 + lane.depth * 16 + 12;
    ctx.font = "9px system-ui, sans-serif";
    for (let r = 0; r < shown.length; r++) {
      const o = shown[r];
      if (!o) continue;
      const text = observerLabel(o) + (more[r] ? "  +" + more[r] : "");
      const oy = ly + HEADER + r * ROW + ROW / 2;
      if (oy < top() || oy > height) continue;
      ctx.fillStyle = KIND[o.kind] || "#888";
      ctx.fillText(text, x, oy, GUTTER - x - 8);
      if (drawn.rowLabels.length < 200) drawn.rowLabels.push(lane.label + ": " + text);
    }
    ctx.font = "11px system-ui, sans-serif";
  }
  const observerLabel = o => msg(o.message) + " · " + o.kind + (o.capture ? " " + o.capture : "");

  function drawObserver(o, lane, ly, px, painted, ticks) {
    if (o.end < v0 || o.start > v1) return false;
    drawn.observers++;
    const oy = ly + HEADER + o.row * ROW, x0 = Math.max(GUTTER, Math.floor(X(o.start))), x1 = Math.min(width, Math.max(Math.ceil(X(o.end)), x0 + 1));
    const outlived = lane.gone != null && o.end > lane.gone;
    // Zoomed out, observers of a row that share pixels are drawn once (an outlived one always shows).
    if (x1 > painted[o.row] || outlived) {
      const from = outlived ? x0 : Math.max(x0, painted[o.row]);
      ctx.fillStyle = KIND[o.kind] || "#888"; ctx.fillRect(from, oy + 2, x1 - from, ROW - 4);
      if (outlived) {
        const g0 = Math.max(x0, X(lane.gone));
        ctx.fillStyle = "#ef9a9a"; ctx.fillRect(g0, oy + 2, Math.max(1, x1 - g0), ROW - 4);
      }
      painted[o.row] = Math.max(painted[o.row], x1);
      hit(x0, oy, x1, oy + ROW, "observer " + o.id + ": " + msg(o.message) + " (" + o.kind + (o.capture ? ", " + o.capture : "") + ")\n"
        + "added at seq " + o.start + " by " + o.site + "\n" + o.ending + (o.open ? "" : " at seq " + o.end));
    } else {
      drawn.aggregated = true;
    }
    // Deliveries: one tick a pixel, darker for more.
    const list = perObserver[o.index];
    // The row's observers follow one another, so its ticks go left to right: one a pixel.
    let i = lower(list.length, k => dl[list[k]], v0), lastX = ticks[o.row], count = 0, outcome = 0;
    const flush = () => { if (count && lastX !== ticks[o.row]) { ctx.globalAlpha = Math.min(1, 0.45 + 0.15 * Math.log2(count + 1)); ctx.fillStyle = OUTCOME[outcome]; ctx.fillRect(lastX, oy + 1, 1.6, ROW - 2); ctx.globalAlpha = 1; } ticks[o.row] = lastX; };
    for (; i < list.length; i++) {
      const d = list[i], s = dl[d];
      if (s > v1) break;
      const x = Math.floor(X(s));
      if (x !== lastX) { flush(); lastX = x; count = 0; outcome = 0; }
      else drawn.aggregated = true;
      count++; outcome = Math.max(outcome, dl[d + 2]); drawn.deliveries++;
      if (px < 1) {
        const p = dl[d + 3], post = p >= 0 ? msg(D.posts[p * 3 + 1]) + " (posted at seq " + D.posts[p * 3] + ")" : "";
        hit(x - 2, oy, x + 3, oy + ROW, OUTCOME_NAME[dl[d + 2]] + " at seq " + s + " to observer " + o.id + "\n" + post);
      }
    }
    flush();
    return true;
  }

  function findingPoint(f) {
    const lane = f.lane >= 0 ? lanes[f.lane] : null;
    if (!lane) return null;
    const o = f.observer >= 0 ? D.observers[f.observer] : null;
    const fy = top() + lane.y - scrollY + (o && o.lane === f.lane ? HEADER + o.row * ROW + ROW / 2 : HEADER / 2);
    return { x: X(f.seq), y: fy };
  }

  function drawFindings() {
    for (const f of findings) {
      if (f.seq < v0 || f.seq > v1) continue;
      const p = findingPoint(f);
      if (!p || p.y < top() - 8 || p.y > height + 8) continue;
      ctx.fillStyle = SEV[f.severity];
      ctx.beginPath(); ctx.moveTo(p.x - 6, p.y - 8); ctx.lineTo(p.x + 6, p.y - 8); ctx.lineTo(p.x, p.y + 1); ctx.closePath(); ctx.fill();
      if (f === selected) { ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.stroke(); ctx.lineWidth = 1; }
      drawn.findings++;
      hit(p.x - 7, p.y - 9, p.x + 7, p.y + 2, findingText(f), f);
    }
  }

  function findingText(f) {
    const rule = D.rules[f.rule];
    return f.severity.toUpperCase() + " " + f.rule + ": " + (f.message || "every message") + (f.owner ? ", owner " + f.owner : "")
      + "\n" + f.text + "\nat " + f.group.callsite + "  [" + f.fingerprint + "]\n\n" + rule.help;
  }

  function drawAxis() {
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, width, AXIS);
    const span = v1 - v0, target = span / Math.max(1, plotW() / 90);
    const step = Math.max(1, Math.pow(10, Math.floor(Math.log10(target))) * ([1, 2, 5, 10].find(m => Math.pow(10, Math.floor(Math.log10(target))) * m >= target) || 10));
    ctx.fillStyle = "#6e6e73"; ctx.font = "10px system-ui, sans-serif";
    for (let s = Math.ceil(v0 / step) * step; s <= v1; s += step) {
      const x = X(s); ctx.fillRect(x, AXIS - 5, 1, 5); ctx.fillText(String(s), x + 2, AXIS / 2 - 1);
    }
    ctx.fillText("seq", 8, AXIS / 2);
    ctx.fillStyle = "#e3e3e8"; ctx.fillRect(0, AXIS - 1, width, 1);
  }

  // Steps on the axis: a tick and its label ("pop Login") where there is room for it, every one on hover.
  function drawSteps() {
    const y0 = AXIS;
    ctx.fillStyle = "#fff"; ctx.fillRect(0, y0, width, STEPS);
    ctx.fillStyle = "#1d1d1f"; ctx.font = "600 11px system-ui, sans-serif"; ctx.fillText("steps", 8, y0 + STEPS / 2);
    ctx.font = "10px system-ui, sans-serif";
    // Ticks first, then the labels that fit on a white ground, so a later tick does not strike through one.
    const from = lower(steps.length, k => steps[k].seq, v0), labelled = [];
    let free = GUTTER;
    for (let i = from; i < steps.length && steps[i].seq <= v1; i++) {
      const st = steps[i], x = X(st.seq);
      ctx.fillStyle = "#3a3a3c"; ctx.fillRect(x, y0 + 2, 1.5, STEPS - 4);
      const w = ctx.measureText(st.label).width;
      if (x + 3 >= free) { labelled.push([st, x, w]); free = x + 4 + w + 6; }
      hit(x - 3, y0, x + 4, y0 + STEPS, "step at seq " + st.seq + ": " + st.label);
    }
    for (const [st, x, w] of labelled) {
      ctx.fillStyle = "#fff"; ctx.fillRect(x + 2, y0 + 2, w + 4, STEPS - 4);
      ctx.fillStyle = "#3a3a3c"; ctx.fillText(st.label, x + 4, y0 + STEPS / 2);
      drawn.steps.push(st.label);
    }
    ctx.fillStyle = "#e3e3e8"; ctx.fillRect(0, y0 + STEPS - 1, width, 1);
  }

  // A faint line through the lanes at each step in view, when they are few enough to read.
  function drawStepLines() {
    const from = lower(steps.length, k => steps[k].seq, v0), to = lower(steps.length, k => steps[k].seq, v1 + 1e-9);
    if (to - from > 200) return;
    ctx.fillStyle = "rgba(60,60,67,.14)";
    for (let i = from; i < to; i++) ctx.fillRect(Math.round(X(steps[i].seq)), top(), 1, height - top());
  }

  function drawPosts(px) {
    const y0 = AXIS + STEPS, h = POSTS - 4;
    ctx.fillStyle = "#fff"; ctx.fillRect(0, y0, width, POSTS);
    ctx.fillStyle = "#1d1d1f"; ctx.font = "600 11px system-ui, sans-serif"; ctx.fillText("posts", 8, y0 + POSTS / 2);
    let i = lower(postSeqs.length, k => postSeqs[k], v0), lastX = -1, count = 0, message = 0;
    const flush = () => { if (count) { ctx.fillStyle = hue(message); const bh = Math.min(h, 6 + 3 * Math.log2(count)); ctx.fillRect(lastX, y0 + 2 + h - bh, 1.6, bh); } };
    for (; i < postSeqs.length; i++) {
      const s = postSeqs[i]; if (s > v1) break;
      const x = Math.floor(X(s));
      if (x !== lastX) { flush(); lastX = x; count = 0; }
      else drawn.aggregated = true;
      count++; message = D.posts[i * 3 + 1]; drawn.posts++;
      if (px < 1) hit(x - 2, y0, x + 3, y0 + POSTS, "post of " + msg(message) + " at seq " + s + (D.posts[i * 3 + 2] >= 0 ? ", during post at seq " + D.posts[D.posts[i * 3 + 2] * 3] : ""));
    }
    flush();
    ctx.fillStyle = "#e3e3e8"; ctx.fillRect(0, y0 + POSTS - 1, width, 1);
  }

  // Interaction.
  function zoom(factor, atX) {
    const c = S(atX === undefined ? GUTTER + plotW() / 2 : atX);
    let n0 = c - (c - v0) * factor, n1 = c + (v1 - c) * factor;
    const minSpan = 10;
    if (n1 - n0 < minSpan) { n0 = c - minSpan / 2; n1 = c + minSpan / 2; }
    const margin = (end - start) * 0.02;
    v0 = Math.max(start - margin, n0); v1 = Math.min(end + margin, n1);
    draw();
  }
  function pan(dx) { const d = dx / plotW() * (v1 - v0); v0 -= d; v1 -= d; draw(); }
  function scroll(dy) { scrollY = Math.max(0, Math.min(Math.max(0, totalHeight - (height - top()) + 20), scrollY + dy)); draw(); }
  function fit() { v0 = start; v1 = end; scrollY = 0; draw(); }

  function at(x, y) { let best = null; for (const h of hits) if (x >= h.x0 && x <= h.x1 && y >= h.y0 && y <= h.y1) { if (!best || h.finding || (!best.finding && h.x1 - h.x0 < best.x1 - best.x0)) best = h; } return best; }

  let drag = null;
  canvas.addEventListener("mousedown", e => { drag = { x: e.clientX, moved: false }; canvas.classList.add("dragging"); });
  window.addEventListener("mouseup", e => {
    canvas.classList.remove("dragging");
    if (drag && !drag.moved) { const r = canvas.getBoundingClientRect(), h = at(e.clientX - r.left, e.clientY - r.top); if (h) select(h); }
    drag = null;
  });
  canvas.addEventListener("mousemove", e => {
    const r = canvas.getBoundingClientRect(), x = e.clientX - r.left, yy = e.clientY - r.top;
    if (drag && Math.abs(e.clientX - drag.x) > 2) { drag.moved = true; pan(e.clientX - drag.x); drag.x = e.clientX; tip.style.display = "none"; return; }
    const h = at(x, yy);
    if (h) { tip.textContent = h.text; tip.style.display = "block"; tip.style.left = Math.min(x + 14, width - 430) + "px"; tip.style.top = (yy + 14) + "px"; }
    else tip.style.display = "none";
  });
  canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  canvas.addEventListener("wheel", e => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) zoom(e.deltaY > 0 ? 1.25 : 0.8, e.clientX - r.left);
    else if (e.shiftKey) pan(-e.deltaY);
    else scroll(e.deltaY);
  }, { passive: false });
  canvas.addEventListener("dblclick", e => { const r = canvas.getBoundingClientRect(); zoom(0.5, e.clientX - r.left); });
  window.addEventListener("keydown", e => { if (e.key === "+" || e.key === "=") zoom(0.8); else if (e.key === "-") zoom(1.25); else if (e.key === "0") fit(); });
  document.getElementById("zoomIn").onclick = () => zoom(0.8);
  document.getElementById("zoomOut").onclick = () => zoom(1.25);
  document.getElementById("fit").onclick = fit;

  function select(h) {
    details.classList.remove("help");
    details.textContent = h.text;
    selected = h.finding || null;
    document.querySelectorAll(".finding").forEach(el => el.classList.toggle("selected", !!selected && el.finding === selected));
    draw();
  }

  function reveal(f) {
    const span = Math.min(end - start, Math.max(40, (v1 - v0)));
    v0 = f.seq - span / 2; v1 = f.seq + span / 2;
    if (f.lane >= 0) { const lane = lanes[f.lane]; if (lane.y < scrollY || lane.y + lane.h > scrollY + height - top()) scrollY = Math.max(0, lane.y - 20); }
    draw();
    select({ text: findingText(f), finding: f });
  }

  // The findings panel: groups with their findings beneath.
  const list = document.getElementById("findings"), LISTED = 100;
  let listed = 0;
  if (!D.groups.length) list.textContent = "No findings.";
  for (const g of D.groups) {
    const div = document.createElement("div"); div.className = "group";
    const head = document.createElement("div");
    head.innerHTML = '<span class="sev ' + g.severity + '"></span> <span class="site"></span>';
    head.children[0].textContent = g.severity; head.children[1].textContent = g.callsite;
    const type = document.createElement("div"); type.className = "help"; type.textContent = g.ownerType || "";
    div.append(head, type);
    for (const f of g.findings.slice(0, LISTED)) {
      const el = document.createElement("div"); el.className = "finding " + f.severity; el.finding = f;
      el.dataset.rule = f.rule;
      el.textContent = f.rule + " — " + (f.message || "every message") + " @ seq " + f.seq;
      el.title = f.text;
      el.onclick = () => reveal(f);
      div.append(el);
    }
    if (g.findings.length > LISTED) {
      const more = document.createElement("div"); more.className = "help";
      more.textContent = "… and " + (g.findings.length - LISTED) + " more of this group on the timeline";
      div.append(more);
    }
    listed += Math.min(LISTED, g.findings.length);
    list.append(div);
  }
  // The plot, not only the window: the header grows when a long title or the legend wraps.
  if (window.ResizeObserver) new ResizeObserver(resize).observe(plot); else window.addEventListener("resize", resize);
  resize();
})();
</script>
</body>
</html>
"""#
}
