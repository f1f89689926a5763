// kruleset HTML report: draws the embedded data (see kruleset/report/html_model.py).
// Only what is on screen is drawn: timeline rows are virtualised, the decision
// list is paged, attempt tables and explanations are built when opened.
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (ev) {
    errors.push(String(ev.message || ev));
    var box = document.getElementById("js-errors");
    box.hidden = false;
    box.textContent = "report script error: " + errors.join("\n");
  });

  var DATA = JSON.parse(document.getElementById("kr-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var ROW = 18, LABEL = 250, AXIS = 22, PAGE = 200, LABEL_CHARS = 38;
  var F = null;            // the file shown
  var S = [];              // its string table
  var byNode = [];         // node -> [run index]
  var marksByNode = [];    // node -> [mark index]
  var pressureByNode = []; // node -> [pressure index]
  var visibleNodes = [];   // node indices after the filter
  var view = {t0: 0, t1: 1};
  var selected = -1;       // selected decision
  var page = 0, filteredDecisions = [];
  var queueOf = {};        // pod -> its attempts as the queue made them

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { for (var k in attrs) { if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function str(i) { return i < 0 ? "" : S[i]; }
  function dur(ms) {
    if (ms === null || ms === undefined) return "";
    var neg = ms < 0; ms = Math.abs(ms);
    var h = Math.floor(ms / 3600000), m = Math.floor(ms % 3600000 / 60000),
        s = Math.floor(ms % 60000 / 1000), r = ms % 1000, out = "";
    if (h) out += h + "h"; if (m) out += m + "m"; if (s) out += s + "s"; if (r) out += r + "ms";
    return (neg ? "-" : "") + (out || "0s");
  }
  function podName(i) { return i < 0 ? "" : F.pods[i]; }
  function nodeName(i) { return i < 0 ? "" : F.nodes[i]; }
  function hue(i) { return (i * 137.508) % 360; }

  // ---- files -----------------------------------------------------------------
  function showFiles() {
    var nav = $("files");
    nav.textContent = "";
    if (DATA.files.length < 2) return;
    DATA.files.forEach(function (f, i) {
      var a = el("a", {"data-file": i}, f.path);
      a.addEventListener("click", function () { location.hash = "file=" + i; });
      nav.appendChild(a);
    });
  }

  function openFile(i) {
    F = DATA.files[i] || DATA.files[0];
    S = F.S || [];
    Array.prototype.forEach.call(document.querySelectorAll("nav#files a"), function (a) {
      a.classList.toggle("current", Number(a.getAttribute("data-file")) === i);
    });
    var nodes = F.nodes || [];
    byNode = nodes.map(function () { return []; });
    marksByNode = nodes.map(function () { return []; });
    pressureByNode = nodes.map(function () { return []; });
    (F.runs || []).forEach(function (r, k) { byNode[r[0]].push(k); });
    (F.marks || []).forEach(function (m, k) { if (m[2] >= 0) marksByNode[m[2]].push(k); });
    (F.pressure || []).forEach(function (p, k) { pressureByNode[p[0]].push(k); });
    view = {t0: 0, t1: Math.max(1000, F.end || 0)};
    selected = -1;
    pendingAtEnd = {};
    ((F.endstate || {}).pending || []).forEach(function (p) { pendingAtEnd[p[0]] = true; });
    queueOf = {};
    (F.queue || []).forEach(function (q) { queueOf[q[0]] = q[1]; });
    summary();
    problems();
    expectations();
    endState();
    filterNodes();
    kinds();
    filterDecisions();
    source();
    $("explain").innerHTML = '<p class="hint">Click a decision, a bar or a mark of the timeline.</p>';
    $("pod").innerHTML = '<p class="hint">Click a pod: its scheduling attempts, when and why each was made.</p>';
    $("node").innerHTML = '<p class="hint">Click a node: its allocated cpu and memory over time.</p>';
    $("attempt").innerHTML = '<p class="hint">The node × plugin table of the decision\'s scheduling attempt.</p>';
  }

  // ---- summary and expectations -------------------------------------------------
  function stat(label, value, key) {
    var s = el("span", {"class": "stat", "data-count": key});
    s.appendChild(el("b", null, String(value)));
    s.appendChild(document.createTextNode(" " + label));
    return s;
  }

  function summary() {
    var box = $("summary");
    box.textContent = "";
    box.appendChild(el("div", {"class": "title"}, F.path + (F.title ? " — " + F.title : "")));
    box.appendChild(el("span", {"class": "status " + F.status, id: "status"}, F.status));
    var exp = F.expectations || [];
    var passed = exp.filter(function (e) { return e[2] === "passed"; }).length;
    var failed = exp.filter(function (e) { return e[2] === "failed"; }).length;
    var unsupported = exp.length - passed - failed;
    box.appendChild(stat("files", DATA.files.length, "files"));
    box.appendChild(stat("expectations passed", passed, "passed"));
    box.appendChild(stat("failed", failed, "failed"));
    if (unsupported) box.appendChild(stat("not simulated yet", unsupported, "unsupported"));
    box.appendChild(stat("nodes", (F.nodes || []).length, "nodes"));
    // pods, never decisions: a pod pending at 10s and running at 20s is not pending
    var pc = podCounts();
    box.appendChild(stat("pods", (F.pods || []).length, "pods"));
    if (F.endstate) {
      box.appendChild(stat("pods running at the end", pc.atEnd, "running-end"));
      box.appendChild(stat("pods pending at the end", F.endstate.pending.length, "pending-end"));
    }
    ["preempted", "evicted", "rejected", "failed"].forEach(function (k) {
      if (pc[k]) box.appendChild(stat("pods " + k, pc[k], "pods-" + k));
    });
    var refused = DATA.files.filter(function (f) { return f.status === "refused"; }).length;
    box.appendChild(stat("files refused", refused, "refused"));
    if (F.end !== undefined) box.appendChild(stat("simulated", dur(F.end), "end"));
    var errs = F.errors && F.errors.length ? F.errors : (F.error ? [F.error] : []);
    if (errs.length) {
      var r = el("div", {"class": "refusal", id: "refusal"});
      r.appendChild(el("b", null, (F.status === "refused" ? "Refused" : "Error") + ": " +
        errs.length + " error" + (errs.length > 1 ? "s" : "")));
      errs.forEach(function (e) {
        var item = el("div", {"class": "error", "data-line": e.line || ""});
        item.appendChild(el("b", null, e.line ? "line " + e.line + ", column " + e.column + ": " : ""));
        item.appendChild(document.createTextNode(e.message));
        if (e.line) { item.appendChild(document.createTextNode(" ")); item.appendChild(lineLink(e.line)); }
        item.appendChild(el("pre", null, e.text));
        r.appendChild(item);
      });
      box.appendChild(r);
    }
    if (F.traced === false) box.appendChild(el("span", {"class": "hint"}, "run without a trace: no attempt tables"));
    $("footer").textContent = "kruleset " + DATA.version + " · " + DATA.files.length +
      " file(s) · budgets: attempt rows " + ((F.budgets || {}).rows || "-") + ", explanation lines " +
      ((F.budgets || {}).explain || "-") + " (kruleset run --explain POD shows everything)";
  }

  // distinct pods per decision kind, and the pods running at the end
  function podCounts() {
    var seen = {}, out = {atEnd: 0};
    (F.decisions || []).forEach(function (d) {
      var k = str(d[1]);
      if (d[2] < 0) return;
      seen[k] = seen[k] || {};
      if (!seen[k][d[2]]) { seen[k][d[2]] = 1; out[k] = (out[k] || 0) + 1; }
    });
    ((F.endstate || {}).nodes || []).forEach(function (n) { out.atEnd += n[1].length; });
    return out;
  }

  function podLink(p, text) {
    var a = el("a", {"class": "pod", href: "#pod=" + encodeURIComponent(podName(p)), "data-pod-name": podName(p),
      title: podName(p)}, text || podName(p));
    a.addEventListener("click", function (ev) { ev.preventDefault(); openPod(p); });
    return a;
  }

  function nodeLink(n, text) {
    var a = el("a", {"class": "node", href: "#node=" + encodeURIComponent(nodeName(n)), "data-node-name": nodeName(n),
      title: nodeName(n)}, text || nodeName(n));
    a.addEventListener("click", function (ev) { ev.preventDefault(); openNode(n); });
    return a;
  }

  // ---- problems first: failed expectations, pending at the end, evictions, preemptions ----
  var PROBLEM_KINDS = {preempted: 1, evicted: 1, rejected: 1, refused: 1, failed: 1, nominated: 1};
  var pendingAtEnd = {};

  function isProblem(d) {
    var k = str(d[1]);
    if (PROBLEM_KINDS[k]) return true;
    return k === "pending" && pendingAtEnd[d[2]] === true;
  }

  function problems() {
    var box = $("problems");
    box.textContent = "";
    var ul = el("ul", {id: "problem-list"});
    (F.expectations || []).forEach(function (e) {
      if (e[2] !== "failed") return;
      var li = el("li", {"class": "failed", "data-problem": "expectation"});
      li.appendChild(el("b", null, "✗ expectation"));
      li.appendChild(lineLink(e[0]));
      li.appendChild(el("span", {"class": "clip", title: e[1] + (e[3] ? " — " + e[3] : "")},
        e[1] + (e[3] ? " — " + e[3] : "")));
      ul.appendChild(li);
    });
    var pend = (F.endstate || {}).pending || [];
    if (pend.length) {
      var groups = {}, order = [];
      pend.forEach(function (p) {
        if (!groups[p[1]]) { groups[p[1]] = []; order.push(p[1]); }
        groups[p[1]].push(p[0]);
      });
      order.forEach(function (m) {
        var li = el("li", {"data-problem": "pending"});
        li.appendChild(el("b", null, groups[m].length + " pod" + (groups[m].length > 1 ? "s" : "") + " pending at the end: "));
        li.appendChild(el("span", {"class": "clip", title: str(m)}, str(m) + " "));
        groups[m].slice(0, 8).forEach(function (p) { li.appendChild(podLink(p)); li.appendChild(document.createTextNode(" ")); });
        if (groups[m].length > 8) li.appendChild(document.createTextNode("… (" + groups[m].length + ")"));
        ul.appendChild(li);
      });
    }
    ["evicted", "preempted", "rejected"].forEach(function (k) {
      var pods = [], seen = {};
      (F.decisions || []).forEach(function (d) { if (str(d[1]) === k && d[2] >= 0 && !seen[d[2]]) { seen[d[2]] = 1; pods.push(d[2]); } });
      if (!pods.length) return;
      var li = el("li", {"data-problem": k});
      li.appendChild(el("b", null, pods.length + " pod" + (pods.length > 1 ? "s" : "") + " " + k + ": "));
      pods.slice(0, 8).forEach(function (p) { li.appendChild(podLink(p)); li.appendChild(document.createTextNode(" ")); });
      if (pods.length > 8) li.appendChild(document.createTextNode("… (" + pods.length + ")"));
      ul.appendChild(li);
    });
    if (!ul.firstChild) ul.appendChild(el("li", {"class": "hint"}, "no problems: every expectation passed, no pod pending at the end, none evicted or preempted"));
    box.appendChild(ul);
  }

  function lineLink(line) {
    var a = el("a", {"class": "line", href: "#L-" + line}, "line " + line);
    a.addEventListener("click", function (ev) { ev.preventDefault(); showLine(line); });
    return a;
  }

  function expectations() {
    var ul = $("expectations");
    ul.textContent = "";
    var exp = F.expectations || [];
    if (!exp.length) { ul.appendChild(el("li", {"class": "hint"}, "no expectations")); return; }
    exp.forEach(function (e) {
      var li = el("li", {"class": e[2], "data-line": e[0]});
      li.appendChild(el("span", {"class": e[2] === "passed" ? "mark-ok" : "mark-bad"},
        e[2] === "passed" ? "✓ " : e[2] === "failed" ? "✗ " : "? "));
      li.appendChild(lineLink(e[0]));
      li.appendChild(document.createTextNode(": " + (e[4] ? "at " + e[4] + " " : "") + e[1]));
      if (e[3]) li.appendChild(el("div", {"class": "msg"}, e[3]));
      ul.appendChild(li);
    });
  }

  // ---- timeline ------------------------------------------------------------------
  function filterNodes() {
    var q = $("node-filter").value.trim();
    visibleNodes = [];
    (F.nodes || []).forEach(function (n, i) { if (!q || n.indexOf(q) >= 0) visibleNodes.push(i); });
    if ($("node-order").value === "problems") {
      // nodes with more preemptions, evictions and other marks first, then as declared
      var weight = function (n) { return marksByNode[n].length; };
      visibleNodes.sort(function (a, b) { return weight(b) - weight(a) || a - b; });
    }
    $("timeline-spacer").style.height = (visibleNodes.length * ROW + AXIS) + "px";
    $("timeline").style.height = Math.min(420, Math.max(3, visibleNodes.length) * ROW + AXIS + 18) + "px";
    drawTimeline();
  }

  function x(t, width) { return LABEL + (t - view.t0) / (view.t1 - view.t0) * (width - LABEL - 8); }

  function drawTimeline() {
    var box = $("timeline"), g = $("timeline-svg");
    var width = Math.max(400, box.clientWidth - 2), height = box.clientHeight;
    var first = Math.max(0, Math.floor(box.scrollTop / ROW));
    var count = Math.ceil(height / ROW) + 1;
    g.setAttribute("width", width);
    g.setAttribute("height", count * ROW + AXIS);
    g.style.top = box.scrollTop + "px";
    while (g.firstChild) g.removeChild(g.firstChild);
    $("window").textContent = dur(Math.round(view.t0)) + " – " + dur(Math.round(view.t1));
    // axis
    var axis = svg("g", {"class": "axis"});
    var span = view.t1 - view.t0, step = niceStep(span / 8);
    for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      var px = x(t, width);
      axis.appendChild(svg("line", {x1: px, x2: px, y1: AXIS - 4, y2: count * ROW + AXIS, stroke: "#eceff3"}));
      var label = svg("text", {x: px + 2, y: 13});
      label.textContent = dur(Math.round(t));
      axis.appendChild(label);
    }
    g.appendChild(axis);
    for (var r = 0; r < count && first + r < visibleNodes.length; r++) {
      drawRow(g, visibleNodes[first + r], AXIS + r * ROW, width);
    }
    if (!visibleNodes.length) {
      var none = svg("text", {x: 8, y: AXIS + 14});
      none.textContent = (F.nodes || []).length ? "no node matches the filter" : "no nodes";
      g.appendChild(none);
    }
  }

  function niceStep(raw) {
    var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map(function (s) { return s * 1000; });
    for (var i = 0; i < steps.length; i++) if (steps[i] >= raw) return steps[i];
    return Math.ceil(raw / 3600000) * 3600000;
  }

  function drawRow(g, n, y, width) {
    var row = svg("g", {"data-node": F.nodes[n]});
    if (n % 2) row.appendChild(svg("rect", {x: 0, y: y, width: width, height: ROW, fill: "#fafbfc"}));
    // a long name keeps its start and its end (where EKS names differ), the whole in a tooltip
    var full = F.nodes[n], short = full.length > LABEL_CHARS ?
      full.slice(0, 17) + "…" + full.slice(full.length - (LABEL_CHARS - 18)) : full;
    var name = svg("text", {x: 4, y: y + 13, "class": "label", "data-node-label": n});
    name.textContent = short;
    var title = svg("title", {}); title.textContent = full + " (click: allocated over time)";
    name.appendChild(title);
    row.appendChild(name);
    pressureByNode[n].forEach(function (k) {
      var p = F.pressure[k];
      if (p[3] < view.t0 || p[2] > view.t1) return;
      var a = Math.max(LABEL, x(p[2], width)), b = Math.min(width, x(Math.max(p[3], p[2] + 1), width));
      var rect = svg("rect", {x: a, y: y, width: Math.max(2, b - a), height: ROW, fill: "#ffd7a8", "data-tip": str(p[1]) + " " + dur(p[2]) + "–" + dur(p[3])});
      row.appendChild(rect);
    });
    // bars: pods stack in lanes so overlapping ones stay visible
    var lanes = [], shown = [];
    byNode[n].forEach(function (k) {
      var r = F.runs[k];
      var end = Math.max(r[3], r[5]);
      if (end < view.t0 || r[2] > view.t1) return;
      var lane = 0;
      while (lane < lanes.length && lanes[lane] > r[2]) lane++;
      lanes[lane] = end;
      shown.push([k, lane]);
    });
    var nl = Math.max(1, Math.min(4, lanes.length)), lh = (ROW - 4) / nl;
    shown.forEach(function (kl) {
      var r = F.runs[kl[0]], lane = kl[1];
      var ly = y + 2 + (lane % nl) * lh;
      var a = Math.max(LABEL, x(r[2], width)), b = Math.min(width, x(r[3], width));
      var color = "hsl(" + hue(r[1]) + ",55%,62%)";
      var tip = podName(r[1]) + " on " + F.nodes[n] + ": " + dur(r[2]) + "–" + dur(r[3]) +
        (r[4] >= 0 ? " (" + str(r[4]) + ", gone " + dur(r[5]) + ")" : "");
      var bar = svg("rect", {"class": "bar", x: a, y: ly, width: Math.max(2, b - a), height: Math.max(2, lh - 1),
        fill: color, "data-pod": r[1], "data-tip": tip});
      var bt = svg("title", {}); bt.textContent = tip; bar.appendChild(bt);
      row.appendChild(bar);
      if (r[5] > r[3]) {
        var c = Math.max(LABEL, x(r[3], width)), d = Math.min(width, x(r[5], width));
        row.appendChild(svg("rect", {"class": "bar", x: c, y: ly, width: Math.max(2, d - c), height: Math.max(2, lh - 1),
          fill: color, "fill-opacity": 0.35, stroke: color, "data-pod": r[1], "data-tip": tip + " terminating"}));
      }
    });
    // marks of one kind that fall on the same few pixels are one mark naming every pod
    var groups = [], at = {};
    marksByNode[n].forEach(function (k) {
      var m = F.marks[k];
      if (m[0] < view.t0 || m[0] > view.t1) return;
      var px = x(m[0], width), key = m[1] + ":" + Math.round(px / 6);
      if (at[key] === undefined) { at[key] = groups.length; groups.push({px: px, kind: str(m[1]), t: m[0], ds: []}); }
      groups[at[key]].ds.push(m[3]);
    });
    groups.forEach(function (gr) {
      var kind = gr.kind, px = gr.px, first = gr.ds[0];
      var color = kind === "preempted" ? "#c62828" : kind === "evicted" ? "#8e24aa" : kind === "nominated" ? "#2d5bd3" : "#555";
      var shape;
      // kinds at one instant must not cover each other: victims' triangles in the
      // row's top half, the preemptor's diamond in its bottom half, others beside
      if (kind === "nominated") {
        shape = svg("path", {d: "M" + px + " " + (y + 9) + "l4.5 4.5l-4.5 4.5l-4.5 -4.5z", fill: color});
      } else if (kind === "preempted" || kind === "evicted") {
        shape = svg("path", {d: "M" + (px - 5) + " " + (y + 1) + "h10l-5 8z", fill: color});
      } else {
        shape = svg("circle", {cx: px + 8, cy: y + ROW / 2, r: 2.5, fill: color});
      }
      shape.setAttribute("class", "mark" + (gr.ds.indexOf(selected) >= 0 ? " sel" : ""));
      shape.setAttribute("data-decision", first);
      shape.setAttribute("data-count", gr.ds.length);
      var d = F.decisions[first], mtip;
      if (gr.ds.length === 1) {
        mtip = dur(gr.t) + " " + kind + " " + str(d[10]) + (str(d[4]) ? " by " + str(d[4]) : "") + (d[6] >= 0 && str(d[6]) ? ": " + str(d[6]) : "");
      } else {
        mtip = dur(gr.t) + " " + kind + " " + gr.ds.length + " pods: " + gr.ds.slice(0, 20).map(function (i) { return str(F.decisions[i][10]); }).join(", ") + (gr.ds.length > 20 ? ", …" : "");
      }
      shape.setAttribute("data-tip", mtip);
      var st = svg("title", {}); st.textContent = mtip; shape.appendChild(st);
      row.appendChild(shape);
    });
    g.appendChild(row);
  }

  function zoom(factor, at) {
    var span = view.t1 - view.t0, end = Math.max(1000, F.end || 0);
    var centre = at === undefined ? view.t0 + span / 2 : at;
    var ns = Math.min(end * 1.05 + 1000, Math.max(100, span * factor));
    var t0 = centre - (centre - view.t0) / span * ns;
    t0 = Math.max(-end * 0.05, Math.min(t0, end * 1.05 - ns));
    view = {t0: t0, t1: t0 + ns};
    drawTimeline();
  }

  function bindTimeline() {
    var box = $("timeline"), tip = $("tooltip");
    box.addEventListener("scroll", drawTimeline);
    window.addEventListener("resize", drawTimeline);
    $("zoom-in").addEventListener("click", function () { zoom(0.5); });
    $("zoom-out").addEventListener("click", function () { zoom(2); });
    $("zoom-reset").addEventListener("click", function () { view = {t0: 0, t1: Math.max(1000, F.end || 0)}; drawTimeline(); });
    $("node-filter").addEventListener("input", function () { box.scrollTop = 0; filterNodes(); });
    $("node-order").addEventListener("change", function () { box.scrollTop = 0; filterNodes(); });
    box.addEventListener("wheel", function (ev) {
      if (!ev.ctrlKey && !ev.altKey && Math.abs(ev.deltaX) <= Math.abs(ev.deltaY) && !ev.shiftKey) {
        if (!ev.metaKey) return; // plain wheel scrolls the rows
      }
      ev.preventDefault();
      var rect = box.getBoundingClientRect(), width = Math.max(400, box.clientWidth - 2);
      var t = view.t0 + (ev.clientX - rect.left - LABEL) / (width - LABEL - 8) * (view.t1 - view.t0);
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        var d = (ev.deltaX || ev.deltaY) / width * (view.t1 - view.t0);
        view = {t0: view.t0 + d, t1: view.t1 + d};
        drawTimeline();
      } else {
        zoom(ev.deltaY > 0 ? 1.25 : 0.8, t);
      }
    }, {passive: false});
    box.addEventListener("mousemove", function (ev) {
      var t = ev.target && ev.target.getAttribute && ev.target.getAttribute("data-tip");
      if (!t) { tip.hidden = true; return; }
      tip.hidden = false;
      tip.textContent = t;
      tip.style.left = (ev.clientX + 12) + "px";
      tip.style.top = (ev.clientY + 12) + "px";
    });
    box.addEventListener("mouseleave", function () { tip.hidden = true; });
    box.addEventListener("click", function (ev) {
      var t = ev.target;
      if (!t || !t.getAttribute) return;
      if (t.tagName === "title") t = t.parentNode;
      if (t.getAttribute("data-decision") !== null) { var i = Number(t.getAttribute("data-decision")); showPod(F.decisions[i][2]); selectDecision(i); return; }
      if (t.getAttribute("data-pod") !== null) { openPod(Number(t.getAttribute("data-pod"))); return; }
      if (t.getAttribute("data-node-label") !== null) { openNode(Number(t.getAttribute("data-node-label"))); }
    });
  }

  // ---- decisions -------------------------------------------------------------------
  function kinds() {
    var sel = $("kind-filter");
    sel.textContent = "";
    var n = 0;
    (F.decisions || []).forEach(function (d) { if (isProblem(d)) n++; });
    sel.appendChild(el("option", {value: "@problems"}, "problems first (" + n + ")"));
    sel.appendChild(el("option", {value: ""}, "every decision (" + (F.decisions || []).length + ")"));
    sel.value = n ? "@problems" : "";
    Object.keys(F.counts || {}).sort().forEach(function (k) {
      sel.appendChild(el("option", {value: k}, k + " (" + F.counts[k] + ")"));
    });
  }

  function filterDecisions() {
    var kind = $("kind-filter").value, q = $("pod-filter").value.trim();
    filteredDecisions = [];
    (F.decisions || []).forEach(function (d, i) {
      if (kind === "@problems") { if (!isProblem(d)) return; }
      else if (kind && str(d[1]) !== kind) return;
      if (q && str(d[10]).indexOf(q) < 0 && nodeName(d[3]).indexOf(q) < 0) return;
      filteredDecisions.push(i);
    });
    page = 0;
    drawDecisions();
  }

  function drawDecisions() {
    var body = document.querySelector("#decisions tbody");
    body.textContent = "";
    var pages = Math.max(1, Math.ceil(filteredDecisions.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    $("page-info").textContent = filteredDecisions.length + " decisions · page " + (page + 1) + "/" + pages;
    filteredDecisions.slice(page * PAGE, (page + 1) * PAGE).forEach(function (i) {
      var d = F.decisions[i];
      var tr = el("tr", {"data-decision": i, "class": i === selected ? "selected" : null});
      tr.appendChild(el("td", null, dur(d[0])));
      tr.appendChild(el("td", {"class": "kind-" + str(d[1]), title: str(d[1])}, str(d[1])));
      var pc = el("td", {title: str(d[10])});
      if (d[2] >= 0) pc.appendChild(podLink(d[2])); else pc.textContent = str(d[10]);
      tr.appendChild(pc);
      var nc = el("td", {title: nodeName(d[3])});
      if (d[3] >= 0) nc.appendChild(nodeLink(d[3]));
      tr.appendChild(nc);
      var why = str(d[5]) + (str(d[6]) ? ": " + str(d[6]) : "");
      tr.appendChild(el("td", {title: why}, why.slice(0, 300)));
      tr.addEventListener("click", function () { selectDecision(i); });
      body.appendChild(tr);
    });
  }

  function selectDecision(i) {
    var d = F.decisions[i];
    if (!d) return;
    selected = i;
    var pos = filteredDecisions.indexOf(i);
    if (pos < 0) {
      // a decision the list's filter hides is shown with every decision around it
      $("kind-filter").value = "";
      $("pod-filter").value = "";
      filterDecisions();
      pos = filteredDecisions.indexOf(i);
    }
    if (pos >= 0) page = Math.floor(pos / PAGE);
    drawDecisions();
    explain(i);
    if (d[8] >= 0) attempt(d[8]); else $("attempt").innerHTML = '<p class="hint">This decision was not made by a scheduling attempt.</p>';
    if (d[3] >= 0) revealNode(d[3], d[0]);
    else drawTimeline();
  }

  function revealNode(n, t) {
    var pos = visibleNodes.indexOf(n), box = $("timeline");
    if (pos < 0) { $("node-filter").value = ""; filterNodes(); pos = visibleNodes.indexOf(n); }
    var top = pos * ROW;
    if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 2 * ROW - AXIS) box.scrollTop = Math.max(0, top - 3 * ROW);
    if (t < view.t0 || t > view.t1) { var span = view.t1 - view.t0; view = {t0: t - span / 2, t1: t + span / 2}; }
    drawTimeline();
  }

  // The decision that decided the pod's fate: its preemption or eviction as a
  // victim, else the attempt that preempted for it, else its last failure
  // (pending at the end), else its scheduling; the latest of the same rank.
  var RANK = {preempted: 5, evicted: 5, rejected: 5, failed: 4, nominated: 3, pending: 2, scheduled: 1};
  function decidingDecision(p) {
    var best = -1, rank = -1;
    (F.decisions || []).forEach(function (d, i) {
      if (d[2] !== p) return;
      var r = RANK[str(d[1])] || 0;
      if (str(d[1]) === "pending" && !pendingAtEnd[p] && rank >= 3) r = 0;
      if (r >= rank) { rank = r; best = i; }
    });
    return best;
  }

  // the address names what is open, so it can be shared (without opening it twice)
  function remember(hash) {
    try { history.replaceState(null, "", "#" + hash); } catch (e) { /* a sandboxed page */ }
  }

  function openPod(p) {
    remember("pod=" + podName(p));
    showPod(p);
    var i = decidingDecision(p);
    if (i >= 0) selectDecision(i);
  }

  function showPod(p) {
    var box = $("pod");
    box.textContent = "";
    box.setAttribute("data-pod", podName(p));
    var head = el("p", {id: "pod-head"});
    head.appendChild(el("b", {title: podName(p)}, podName(p)));
    var where = null;
    ((F.endstate || {}).nodes || []).forEach(function (n) { if (n[1].indexOf(p) >= 0) where = n[0]; });
    if (where !== null) { head.appendChild(document.createTextNode(" runs on ")); head.appendChild(nodeLink(where)); head.appendChild(document.createTextNode(" at the end")); }
    else if (pendingAtEnd[p]) {
      var msg = "";
      F.endstate.pending.forEach(function (q) { if (q[0] === p) msg = str(q[1]); });
      head.appendChild(document.createTextNode(" is pending at the end: " + msg));
    } else head.appendChild(document.createTextNode(" is gone at the end"));
    if (F.req && F.req[p]) head.appendChild(document.createTextNode(" · requests " + cpuText(F.req[p][0]) + " cpu, " + memText(F.req[p][1])));
    box.appendChild(head);
    var rows = queueOf[p] || [];
    if (!rows.length) { box.appendChild(el("p", {"class": "hint"}, "No scheduling attempt (placed on its node from the start, or never tried).")); return; }
    var wrap = el("div", {"class": "scroll short"});
    var t = el("table", {id: "pod-attempts", "class": "fixed"});
    var cols = el("colgroup");
    ["c-time", "c-n", "c-result", "c-why", "c-node", "c-queue"].forEach(function (c) { cols.appendChild(el("col", {"class": c})); });
    t.appendChild(cols);
    var hr = el("tr");
    ["time", "#", "result", "why it was tried then", "node", "then waits in"].forEach(function (h) { hr.appendChild(el("th", {title: h}, h)); });
    var th = el("thead"); th.appendChild(hr); t.appendChild(th);
    var body = el("tbody");
    rows.forEach(function (a) {
      var tr = el("tr", {"data-time": a[0], "class": "res-" + str(a[2])});
      tr.appendChild(el("td", {title: dur(a[0])}, dur(a[0])));
      tr.appendChild(el("td", {"class": "num", title: "attempt " + a[1]}, String(a[1])));
      tr.appendChild(el("td", {title: str(a[6])}, str(a[2]) + (str(a[6]) ? ": " + str(a[6]) : "")));
      tr.appendChild(el("td", {title: str(a[3])}, str(a[3])));
      var nc = el("td", {title: (a[4] >= 0 ? nodeName(a[4]) : a[5] >= 0 ? "nominated " + nodeName(a[5]) : "") +
        (a[8].length ? " (victims " + a[8].map(podName).join(", ") + ")" : "")});
      if (a[4] >= 0) nc.appendChild(nodeLink(a[4]));
      else if (a[5] >= 0) { nc.appendChild(document.createTextNode("nominated ")); nc.appendChild(nodeLink(a[5])); }
      if (a[8].length) nc.appendChild(document.createTextNode(" (victims " + a[8].map(podName).join(", ") + ")"));
      tr.appendChild(nc);
      tr.appendChild(el("td", {title: str(a[7])}, str(a[7])));
      tr.addEventListener("click", function (ev) {
        if (ev.target.tagName === "A") return;
        var found = -1;
        (F.decisions || []).forEach(function (d, i) { if (found < 0 && d[2] === p && d[0] === a[0] && d[8] >= 0) found = i; });
        if (found >= 0) selectDecision(found);
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    wrap.appendChild(t);
    box.appendChild(wrap);
  }

  function cpuText(m) { return String(Math.round(m) / 1000); }
  function memText(b) {
    return b >= 1073741824 ? (Math.round(b / 1073741824 * 100) / 100) + "Gi" : (Math.round(b / 1048576 * 10) / 10) + "Mi";
  }

  // ---- a node: allocated against allocatable over time --------------------------------
  function usageSteps(n) {
    var ev = [];
    byNode[n].forEach(function (k) {
      var r = F.runs[k], q = F.req ? F.req[r[1]] : null;
      if (!q) return;
      ev.push([r[2], q[0], q[1]]);
      var gone = Math.max(r[3], r[5]);
      if (gone < (F.end || 0)) ev.push([gone, -q[0], -q[1]]);  // still there at the end
    });
    ev.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var cpu = 0, mem = 0, out = [[0, 0, 0]];
    ev.forEach(function (e) {
      cpu += e[1]; mem += e[2];
      if (out.length && out[out.length - 1][0] === e[0]) out[out.length - 1] = [e[0], cpu, mem];
      else out.push([e[0], cpu, mem]);
    });
    return out;
  }

  function chart(steps, k, cap, label, fmt) {
    var W = 460, H = 90, L = 4, end = Math.max(1000, F.end || 0);
    var peak = Math.max(cap || 0, steps.reduce(function (m, s) { return Math.max(m, s[k]); }, 0)) || 1;
    var sx = function (t) { return L + Math.max(0, t) / end * (W - L - 4); };
    var sy = function (v) { return H - 14 - v / peak * (H - 30); };
    var g = svg("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", height: H, "class": "chart",
      "data-resource": label, role: "img", "aria-label": label + " allocated against allocatable"});
    var d = "M" + sx(0) + " " + sy(0);
    steps.forEach(function (s, i) { if (i) d += "H" + sx(s[0]); d += "V" + sy(s[k]); });
    d += "H" + sx(end);
    if (cap) g.appendChild(svg("line", {x1: sx(0), x2: sx(end), y1: sy(cap), y2: sy(cap), stroke: "#c62828", "stroke-dasharray": "4 3"}));
    g.appendChild(svg("path", {d: d, fill: "none", stroke: "#2d5bd3", "stroke-width": 1.5}));
    var maxUsed = steps.reduce(function (m, s) { return Math.max(m, s[k]); }, 0);
    var t = svg("text", {x: L, y: 10, "font-size": 11});
    t.textContent = label + ": peak " + fmt(maxUsed) + " allocated of " + (cap ? fmt(cap) : "?") + " allocatable";
    g.appendChild(t);
    var a0 = svg("text", {x: L, y: H - 2, "font-size": 10, fill: "#5d6678"}); a0.textContent = "0s"; g.appendChild(a0);
    var a1 = svg("text", {x: W - 4, y: H - 2, "font-size": 10, fill: "#5d6678", "text-anchor": "end"}); a1.textContent = dur(end); g.appendChild(a1);
    return g;
  }

  function openNode(n) {
    remember("node=" + nodeName(n));
    var box = $("node");
    box.textContent = "";
    box.setAttribute("data-node", nodeName(n));
    box.appendChild(el("p", {id: "node-head"}, null)).appendChild(el("b", {title: nodeName(n), "class": "clip"}, nodeName(n)));
    var cap = F.alloc ? F.alloc[n] : null, steps = usageSteps(n);
    box.appendChild(chart(steps, 1, cap ? cap[0] : 0, "cpu", cpuText));
    box.appendChild(chart(steps, 2, cap ? cap[1] : 0, "memory", memText));
    var pods = [];
    ((F.endstate || {}).nodes || []).forEach(function (e) { if (e[0] === n) pods = e[1]; });
    var p = el("p", {"class": "node-pods"}, pods.length + " pod(s) at the end: ");
    pods.slice(0, 40).forEach(function (q) { p.appendChild(podLink(q)); p.appendChild(document.createTextNode(" ")); });
    if (pods.length > 40) p.appendChild(document.createTextNode("…"));
    box.appendChild(p);
    if (visibleNodes.indexOf(n) >= 0) revealNode(n, view.t0);
  }

  // ---- the end state: pods by node, pending pods with their message -----------------------
  function endState() {
    var box = $("endstate");
    box.textContent = "";
    var es = F.endstate;
    if (!es) { box.appendChild(el("p", {"class": "hint"}, "the file did not run")); return; }
    var pend = el("div", {id: "endstate-pending"});
    pend.appendChild(el("h3", null, es.pending.length + " pod(s) pending at the end"));
    if (es.pending.length) {
      var wrap = el("div", {"class": "scroll short"});
      var t = el("table", {"class": "fixed"});
      var body = el("tbody");
      es.pending.forEach(function (q) {
        var tr = el("tr");
        var c = el("td", {"class": "w-pod", title: podName(q[0])}); c.appendChild(podLink(q[0])); tr.appendChild(c);
        tr.appendChild(el("td", {title: str(q[1])}, (q[2] >= 0 ? "nominated " + nodeName(q[2]) + "; " : "") + str(q[1])));
        body.appendChild(tr);
      });
      t.appendChild(body); wrap.appendChild(t); pend.appendChild(wrap);
    }
    box.appendChild(pend);
    var nodes = el("div", {id: "endstate-nodes"});
    var running = es.nodes.reduce(function (m, e) { return m + e[1].length; }, 0);
    nodes.appendChild(el("h3", null, running + " pod(s) on " + es.nodes.length + " node(s)"));
    var wrap2 = el("div", {"class": "scroll short"});
    var t2 = el("table", {"class": "fixed"});
    var b2 = el("tbody");
    es.nodes.forEach(function (e) {
      var tr = el("tr", {"data-node": nodeName(e[0])});
      var c = el("td", {"class": "w-node", title: nodeName(e[0])}); c.appendChild(nodeLink(e[0])); tr.appendChild(c);
      var names = e[1].map(podName).join(", ");
      tr.appendChild(el("td", {title: names}, e[1].length + ": " + names));
      b2.appendChild(tr);
    });
    t2.appendChild(b2); wrap2.appendChild(t2); nodes.appendChild(wrap2);
    box.appendChild(nodes);
  }

  function explain(i) {
    var d = F.decisions[i], box = $("explain");
    box.textContent = "";
    var head = el("p", {id: "explain-head"});
    head.appendChild(el("b", null, dur(d[0]) + " " + str(d[1]) + " " + str(d[10])));
    if (d[3] >= 0) head.appendChild(document.createTextNode(" on " + nodeName(d[3])));
    if (str(d[4])) head.appendChild(document.createTextNode(" by " + str(d[4])));
    box.appendChild(head);
    if (str(d[5]) || str(d[6])) box.appendChild(el("p", null, str(d[5]) + (str(d[6]) ? ": " + str(d[6]) : "")));
    var others = [];
    (F.decisions || []).forEach(function (o, k) { if (o[10] === d[10] && k !== i) others.push(k); });
    if (others.length) {
      var more = el("p", {"class": "hint", id: "pod-decisions"}, "Other decisions about " + str(d[10]) + ": ");
      others.slice(0, 30).forEach(function (k, n) {
        var o = F.decisions[k];
        if (n) more.appendChild(document.createTextNode(", "));
        var a = el("a", {"class": "line", href: "#decision=" + k}, dur(o[0]) + " " + str(o[1]));
        more.appendChild(a);
      });
      if (others.length > 30) more.appendChild(document.createTextNode(" … (" + others.length + ")"));
      box.appendChild(more);
    }
    if (d[7].length) {
      var rules = el("p", null, "decided by ");
      d[7].forEach(function (r, k) { if (k) rules.appendChild(document.createTextNode(", ")); rules.appendChild(el("span", {"class": "rule"}, str(r))); });
      box.appendChild(rules);
    }
    if (d[9] >= 0) {
      box.appendChild(el("p", {"class": "hint"}, "The rule chain (kruleset run --explain " + str(d[10]) + "), at " + dur(d[0]) + ":"));
      var ul = el("ul", {"class": "chain", id: "chain"});
      F.explain[d[9]].forEach(function (e) {
        var text = str(e[2]);
        var li = el("li", {"class": /^(fail|stop|not )/.test(text) ? "fail" : null});
        li.appendChild(el("span", {"class": "rule"}, str(e[0])));
        li.appendChild(document.createTextNode((e[1] >= 0 ? " [" + str(e[1]) + "]" : "") + " " + text));
        ul.appendChild(li);
      });
      box.appendChild(ul);
    } else if (F.traced) {
      box.appendChild(el("p", {"class": "hint"}, "No rule lines kept for this decision (report budget); kruleset run --explain " + str(d[10]) + " shows them."));
    }
  }

  // ---- scheduling attempt table --------------------------------------------------------
  // an attempt's data leaves out what is empty (html_model._ATTEMPT_DEFAULTS)
  var ATTEMPT_DEFAULTS = {c: -1, f: [], sp: [], sw: [], rows: [], om: [], v: 0, ok: 0, cand: [], pre: [], d: false};
  function attempt(a) {
    var at = {}, raw = F.attempts[a], box = $("attempt");
    for (var k in ATTEMPT_DEFAULTS) at[k] = raw[k] === undefined ? ATTEMPT_DEFAULTS[k] : raw[k];
    at.p = raw.p; at.t = raw.t;
    box.textContent = "";
    var head = el("p", {id: "attempt-head"});
    head.appendChild(el("b", null, podName(at.p) + " at " + dur(at.t)));
    head.appendChild(document.createTextNode(": " + at.v + " node(s) visited, " + at.ok + " feasible" +
      (at.c >= 0 ? ", chosen " + nodeName(at.c) : ", none chosen")));
    box.appendChild(head);
    at.pre.forEach(function (p) { box.appendChild(el("p", {"class": "fail"}, str(p))); });
    if (!at.d) box.appendChild(el("p", {"class": "hint"}, "The node-by-node detail of this attempt is beyond the report's budget; kruleset run --explain " + podName(at.p) + " shows it."));
    var wrap = el("div", {"class": "attempt-table"});
    var table = el("table", {id: "attempt-table", "data-pod": podName(at.p)});
    var hr = el("tr");
    hr.appendChild(el("th", null, "node"));
    at.f.forEach(function (p) { hr.appendChild(el("th", {title: "filter " + str(p)}, str(p))); });
    hr.appendChild(el("th", {title: "weighted total of the scores"}, "total"));
    at.sp.forEach(function (p, k) {
      var w = at.sw && at.sw[k] !== null && at.sw[k] !== undefined ? " ×" + at.sw[k] : "";
      hr.appendChild(el("th", {title: str(p) + (w ? ", weight " + at.sw[k] : "") + ": normalised score (0-100)"},
        str(p).replace("scheduler.score.", "") + w));
    });
    var thead = el("thead"); thead.appendChild(hr); table.appendChild(thead);
    var body = el("tbody");
    at.rows.forEach(function (r) {
      var tr = el("tr", {"data-node": nodeName(r[0]), "class": r[0] === at.c ? "chosen" : null});
      var ncell = el("td", {title: nodeName(r[0])});
      ncell.appendChild(nodeLink(r[0], nodeName(r[0]) + (r[0] === at.c ? " ✓" : "")));
      tr.appendChild(ncell);
      var failed = false;
      at.f.forEach(function (p) {
        if (failed) { tr.appendChild(el("td", {"class": "skip"}, "–")); return; }
        if (r[1] === p) {
          failed = true;
          var why = str(r[2]) + (r[5] !== undefined && r[5] >= 0 ? ": " + str(r[5]) : "");
          tr.appendChild(el("td", {"class": "fail", title: why}, why));
          return;
        }
        tr.appendChild(el("td", {"class": "pass"}, "pass"));
      });
      tr.appendChild(el("td", {"class": "num"}, r[3] === null ? (r[1] >= 0 ? "" : (r[0] === at.c ? "only feasible" : "")) : String(r[3])));
      at.sp.forEach(function (p, k) {
        var c = r[4] ? r[4][k] : null;
        if (!c || c[1] === null) { tr.appendChild(el("td", {"class": "num"}, "")); return; }
        var w = at.sw ? at.sw[k] : null;
        var tip = (c[0] !== null ? "raw " + c[0] + ", " : "") + "normalized " + c[1] +
          (w !== null && w !== undefined ? ", weighted " + (w * c[1]) : "");
        tr.appendChild(el("td", {"class": "num", title: tip}, String(c[1])));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    box.appendChild(wrap);
    if (at.om.length) {
      var om = el("p", {"class": "omitted", id: "attempt-omitted"}, "Not listed: ");
      om.textContent += at.om.map(function (o) { return o[1] + " × " + str(o[0]); }).join("; ");
      box.appendChild(om);
    }
    if (at.cand.length) {
      box.appendChild(el("h3", null, "Preemption candidates"));
      var ct = el("table", {id: "candidates"});
      var ch = el("tr");
      ["node", "victims", "PDB violations", "picked", "why"].forEach(function (h) { ch.appendChild(el("th", null, h)); });
      var chead = el("thead"); chead.appendChild(ch); ct.appendChild(chead);
      var cb = el("tbody");
      at.cand.forEach(function (c) {
        var tr = el("tr", {"class": c[4] === 1 ? "chosen" : null, "data-node": nodeName(c[0])});
        tr.appendChild(el("td", null, nodeName(c[0])));
        tr.appendChild(el("td", null, c[1] === null ? "not a candidate" : (c[1].map(podName).join(", ") || "none")));
        tr.appendChild(el("td", {"class": "num"}, c[1] === null ? "" : String(c[2])));
        tr.appendChild(el("td", null, c[4] === 1 ? "chosen" : c[4] === 0 ? "not chosen" : ""));
        tr.appendChild(el("td", {title: c[4] >= 0 && c[6] !== undefined ? str(c[6]) : null}, c[4] >= 0 ? str(c[5]) : str(c[3])));
        cb.appendChild(tr);
      });
      ct.appendChild(cb);
      var cw = el("div", {"class": "scroll"});
      cw.appendChild(ct);
      box.appendChild(cw);
    }
  }

  // ---- source --------------------------------------------------------------------------
  function source() {
    var box = $("source");
    box.innerHTML = F.source || '<p class="hint">no source</p>';
  }

  function showLine(line) {
    var target = document.getElementById("L-" + line);
    Array.prototype.forEach.call(document.querySelectorAll("#source .target"), function (e) { e.classList.remove("target"); });
    if (!target) return;
    target.classList.add("target");
    var box = $("source");
    box.scrollTop = Math.max(0, target.offsetTop - box.offsetTop - 60);
    $("source-section").scrollIntoView({block: "nearest"});
  }

  // ---- routing ----------------------------------------------------------------------------
  function route() {
    var h = decodeURIComponent(location.hash.replace(/^#/, ""));
    var m = /^file=(\d+)/.exec(h);
    if (m) { openFile(Number(m[1])); return; }
    m = /^decision=(\d+)/.exec(h);
    if (m) { selectDecision(Number(m[1])); return; }
    m = /^pod=(.+)$/.exec(h);
    if (m) {
      var key = m[1].indexOf("/") >= 0 ? m[1] : "default/" + m[1];
      var p = (F.pods || []).indexOf(key);
      if (p >= 0) openPod(p);
      return;
    }
    m = /^node=(.+)$/.exec(h);
    if (m) {
      var n = (F.nodes || []).indexOf(m[1]);
      if (n >= 0) openNode(n);
      return;
    }
    m = /^L-(\d+)$/.exec(h);
    if (m) showLine(Number(m[1]));
  }

  $("kind-filter").addEventListener("change", filterDecisions);
  $("pod-filter").addEventListener("input", filterDecisions);
  $("prev-page").addEventListener("click", function () { page--; drawDecisions(); });
  $("next-page").addEventListener("click", function () { page++; drawDecisions(); });
  showFiles();
  bindTimeline();
  var start = /^#file=(\d+)/.exec(location.hash);
  openFile(start ? Number(start[1]) : 0);
  route();
  window.addEventListener("hashchange", route);
  document.body.setAttribute("data-ready", errors.length ? "error" : "yes");
})();
