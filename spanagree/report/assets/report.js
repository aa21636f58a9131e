/* spanagree's HTML report: the summary (tables and inline SVG charts) and the document view,
   drawn from the page's view model (the spanagree-view block: sections, documents table, kinds,
   words) and its documents (the spanagree-documents block), docs/report.md. The script never asks
   which command made the page: what it draws is what the view holds. Plain JavaScript, no library,
   no network request. Offsets are Unicode code points: texts are split with Array.from. */
(function () {
  "use strict";
  var VIEW = JSON.parse(document.getElementById("spanagree-view").textContent);
  var DOCS = JSON.parse(document.getElementById("spanagree-documents").textContent);
  var app = document.getElementById("sa-app");
  var SVGNS = "http://www.w3.org/2000/svg";
  var NAMES = VIEW.annotators;
  var COLOURS = {};  // the kinds of disagreement (an item of another kind agrees), and their outlines
  VIEW.kinds.forEach(function (k) { COLOURS[k.name] = k.colour; });
  function disagrees(kind) { return Object.prototype.hasOwnProperty.call(COLOURS, kind); }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var k = 2; k < arguments.length; k++) append(node, arguments[k]);
    return node;
  }
  function sv(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    for (var k = 2; k < arguments.length; k++) append(node, arguments[k]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (key) {
      var v = attrs[key];
      if (v === null || v === undefined || v === false) return;
      if (key === "onclick") node.addEventListener("click", v);
      else if (key === "onchange") node.addEventListener("change", v);
      else if (key === "style") node.setAttribute("style", v);
      else node.setAttribute(key, v === true ? "" : String(v));
    });
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  function fmt(x) {
    if (x === null || x === undefined) return "—";
    if (typeof x === "number") return Number.isInteger(x) ? String(x) : x.toFixed(3);
    return String(x);
  }
  function heat(v) {  // 0 → red, 1 → green; undefined → grey
    if (v === null || v === undefined) return "#ddd";
    var h = Math.max(0, Math.min(1, v)) * 120;
    return "hsl(" + h.toFixed(0) + ",65%,72%)";
  }
  function hue(label) {
    var h = 0;
    var s = String(label);
    for (var k = 0; k < s.length; k++) h = (h * 31 + s.charCodeAt(k)) % 360;
    return h;
  }
  function labelStyle(label) {
    var h = hue(label);
    return "--sa-colour:hsl(" + h + ",60%,40%);--sa-tint:hsl(" + h + ",80%,92%)";
  }
  function table(head, rows, options) {
    options = options || {};
    var thead = el("tr", null, head.map(function (h, k) {
      return el("th", { "class": k < (options.textColumns || 1) ? "sa-text" : null }, h);
    }));
    return el("table", { "class": "sa-table", id: options.id }, el("thead", null, thead), el("tbody", null, rows.map(function (row) {
      return el("tr", null, row.map(function (cell, k) {
        if (cell && cell.nodeType) return cell;
        return el("td", { "class": k < (options.textColumns || 1) ? "sa-text" : null }, fmt(cell));
      }));
    })));
  }
  function heatCell(v) { return el("td", { style: "background:" + heat(v) }, fmt(v)); }
  function section(title, id) { return el("section", { id: id }, el("h2", null, title)); }

  // ---- the summary: the view's sections, block by block ----------------------------------------
  function comparisonName(c) { return VIEW.comparisons[c].name; }

  function cell(v) {  // a table cell of the view: a value, {heat}, {interval} or {value, style}
    if (v !== null && typeof v === "object") {
      if ("heat" in v) return heatCell(v.heat);
      if ("interval" in v) return el("td", null, intervalText(v.interval));
      return el("td", { style: v.style }, fmt(v.value));
    }
    return v;
  }
  function part(p) {  // a paragraph's part: a text, {value} or {text | value, tag, id}
    if (typeof p === "string") return p;
    var text = "value" in p ? fmt(p.value) : p.text;
    return p.tag ? el(p.tag, { id: p.id }, text) : text;
  }
  function block(b) {
    if (b.type === "table") return table(b.head, b.rows.map(function (row) { return row.map(cell); }), { textColumns: b.text_columns, id: b.id });
    if (b.type === "paragraph") return el("p", { "class": b["class"], id: b.id }, b.parts.map(part));
    if (b.type === "heading") return el("h3", null, b.text);
    if (b.type === "box") return el("div", { "class": "sa-chart", id: b.id, style: b.inline ? "display:inline-block" : null }, b.blocks.map(block));
    if (b.type === "group") return el("div", null, b.blocks.map(block));
    if (b.type === "heatmap") return heatmapSvg(b.names, b.matrix);
    if (b.type === "bars") return barsSvg(b.entries, b.title);
    if (b.type === "kappa") return kappaCharts(b.charts);
    if (b.type === "intervals") return intervalsSvg(b.rows);
    throw new Error("unknown block " + b.type);
  }
  function summarySection(s) {
    var node = section(s.title, s.id);
    s.blocks.forEach(function (b) { node.appendChild(block(b)); });
    return node;
  }

  function heatmapSvg(names, matrix) {
    var cell = 54, left = 90, top = 20, n = names.length;
    var g = sv("svg", { width: left + n * cell + 10, height: top + n * cell + 70, role: "img", "aria-label": "pairwise F1" });
    for (var i = 0; i < n; i++) {
      g.appendChild(sv("text", { x: left - 6, y: top + i * cell + cell / 2 + 4, "text-anchor": "end" }, names[i]));
      g.appendChild(sv("text", { x: left + i * cell + cell / 2, y: top + n * cell + 14, "text-anchor": "end",
        transform: "rotate(-35 " + (left + i * cell + cell / 2) + " " + (top + n * cell + 14) + ")" }, names[i]));
      for (var j = 0; j < n; j++) {
        var v = matrix[i][j];
        g.appendChild(sv("rect", { x: left + j * cell, y: top + i * cell, width: cell - 2, height: cell - 2, fill: heat(v) },
          sv("title", null, names[i] + " × " + names[j] + ": " + fmt(v))));
        g.appendChild(sv("text", { x: left + j * cell + cell / 2 - 1, y: top + i * cell + cell / 2 + 4, "text-anchor": "middle" }, fmt(v)));
      }
    }
    return g;
  }

  function barsSvg(entries, title) {  // entries: [[name, value]]
    var width = 360, bar = 20, left = 170;
    var max = Math.max.apply(null, entries.map(function (e) { return e[1]; }).concat([1]));
    var g = sv("svg", { width: width + left, height: entries.length * (bar + 4) + 24, role: "img", "aria-label": title });
    entries.forEach(function (e, k) {
      var w = (e[1] / max) * (width - 50);
      g.appendChild(sv("text", { x: left - 6, y: k * (bar + 4) + 15, "text-anchor": "end" }, e[0]));
      g.appendChild(sv("rect", { x: left, y: k * (bar + 4) + 2, width: Math.max(w, 0.5), height: bar, fill: "hsl(" + hue(e[0]) + ",55%,60%)" }));
      g.appendChild(sv("text", { x: left + w + 4, y: k * (bar + 4) + 15 }, fmt(e[1])));
    });
    return g;
  }

  // --compare: the paired tests (docs/statistics.md)

  // --chance: kappa against d, one chart per comparison (Hripcsak & Rothschild 2005)
  function kappaCharts(charts) {
    var wrap = el("div", { "class": "sa-charts" });
    charts.forEach(function (chart) {
      var curves = chart.curves, c = chart.comparison;
      var W = 420, H = 240, L = 44, B = 30, T = 10, R = 10;
      var maxD = 1;
      curves.forEach(function (cv) { cv.points.forEach(function (p) { maxD = Math.max(maxD, p[0]); }); });
      var lx = function (d) { return L + (Math.log10(d + 1) / Math.log10(maxD + 1)) * (W - L - R); };
      var ly = function (k) { return T + (1 - (Math.max(-1, Math.min(1, k)) + 1) / 2) * (H - T - B); };
      var g = sv("svg", { width: W, height: H + 20, role: "img", "aria-label": "kappa against d", "class": "sa-kappa-chart", "data-comparison": c });
      g.appendChild(sv("line", { x1: L, y1: ly(0), x2: W - R, y2: ly(0), stroke: "#ccc" }));
      g.appendChild(sv("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#888" }));
      g.appendChild(sv("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#888" }));
      [-1, -0.5, 0, 0.5, 1].forEach(function (k) { g.appendChild(sv("text", { x: L - 4, y: ly(k) + 4, "text-anchor": "end" }, k)); });
      [0, 10, 100, 1000, 10000, 100000, 1000000].forEach(function (d) {
        if (d <= maxD) g.appendChild(sv("text", { x: lx(d), y: H - B + 14, "text-anchor": "middle" }, d >= 1000 ? (d / 1000) + "k" : d));
      });
      g.appendChild(sv("text", { x: (W + L) / 2, y: H + 12, "text-anchor": "middle" }, "d (log scale)"));
      curves.forEach(function (cv) {
        var colour = cv.level === "tokens" ? "#1f6fd1" : "#d1741f";
        var path = cv.points.filter(function (p) { return p[1] !== null; }).map(function (p, k) {
          return (k ? "L" : "M") + lx(p[0]).toFixed(1) + "," + ly(p[1]).toFixed(1);
        }).join("");
        g.appendChild(sv("path", { d: path, fill: "none", stroke: colour, "stroke-width": 2, "class": "sa-curve", "data-level": cv.level }));
        if (cv.psa !== null) g.appendChild(sv("line", { x1: L, x2: W - R, y1: ly(cv.psa), y2: ly(cv.psa), stroke: colour, "stroke-dasharray": "3 3" }));
        if (cv.d !== null && cv.kappa !== null) {
          g.appendChild(sv("circle", { cx: lx(cv.d), cy: ly(cv.kappa), r: 5, fill: colour, "class": "sa-actual-d" },
            sv("title", null, "tokens: d = " + cv.d + ", kappa = " + fmt(cv.kappa))));
        }
      });
      var legend = el("div", { "class": "sa-legend" }, curves.map(function (cv) {
        return el("span", { style: "color:" + (cv.level === "tokens" ? "#1f6fd1" : "#d1741f") },
          cv.level + ": a=" + fmt(cv.a) + " b=" + fmt(cv.b) + " c=" + fmt(cv.c) + (cv.d !== null ? " d=" + cv.d + " κ=" + fmt(cv.kappa) : "") + " PSA=" + fmt(cv.psa));
      }));
      wrap.appendChild(el("div", { "class": "sa-chart" }, el("h3", null, chart.name), g, legend));
    });
    return wrap;
  }

  function intervalsSvg(rows) {  // rows: [[name, [low, high] or null]]
    var W = 420, L = 170, bar = 18;
    var g = sv("svg", { width: W + L, height: rows.length * (bar + 6) + 24, role: "img", "aria-label": "F1 intervals" });
    var x = function (v) { return L + v * (W - 20); };
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      g.appendChild(sv("line", { x1: x(v), x2: x(v), y1: 0, y2: rows.length * (bar + 6), stroke: "#eee" }));
      g.appendChild(sv("text", { x: x(v), y: rows.length * (bar + 6) + 14, "text-anchor": "middle" }, v));
    });
    rows.forEach(function (e, k) {
      var y = k * (bar + 6) + bar / 2 + 2;
      g.appendChild(sv("text", { x: L - 6, y: y + 4, "text-anchor": "end" }, e[0]));
      var iv = e[1];
      if (iv) g.appendChild(sv("line", { x1: x(iv[0]), x2: x(iv[1]), y1: y, y2: y, stroke: "#1f6fd1", "stroke-width": 6, "class": "sa-interval" }));
    });
    return g;
  }
  function intervalText(iv) { return iv ? "[" + fmt(iv[0]) + ", " + fmt(iv[1]) + "]" : "—"; }

  // ---- the documents table -------------------------------------------------------------------
  var shownIndex = {};
  DOCS.documents.forEach(function (d, k) { shownIndex[d.id] = k; });

  function documentsSection() {
    var s = section("Documents", "sa-documents");
    var spec = VIEW.documents, columns = spec.columns;
    spec.notes.forEach(function (n) { s.appendChild(block(n)); });
    var rows = spec.rows.map(function (r, k) { return { values: r, order: k }; });
    var sortKey = spec.sort, ascending = spec.ascending;
    var limit = 300;
    var holder = el("div");
    function compare(a, b) {
      var x = a.values[sortKey], y = b.values[sortKey];
      if (x === y) return a.order - b.order;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      var r = x < y ? -1 : 1;
      return ascending ? r : -r;
    }
    function draw() {
      rows.sort(compare);
      var head = el("tr", null, columns.map(function (c, k) {
        return el("th", { "class": "sa-sortable" + (k === 0 ? " sa-text" : ""), "data-key": k, onclick: function () {
          if (sortKey === k) ascending = !ascending; else { sortKey = k; ascending = c.ascending; }
          draw();
        } }, c.name + (sortKey === k ? (ascending ? " ▲" : " ▼") : ""));
      }));
      var body = el("tbody", null, rows.slice(0, limit).map(function (r) {
        var id = r.values[0];
        return el("tr", { "class": "sa-row", "data-doc": id, onclick: function () { showDocument(id, true); } },
          columns.map(function (c, k) {
            if (k === 0) return el("td", { "class": "sa-text" }, id, shownIndex[id] === undefined ? el("span", { "class": "sa-muted" }, " (left out)") : null);
            return c.heat ? heatCell(r.values[k]) : el("td", null, fmt(r.values[k]));
          }));
      }));
      holder.textContent = "";
      holder.appendChild(el("table", { "class": "sa-table", id: "sa-document-table" }, el("thead", null, head), body));
      if (rows.length > limit) holder.appendChild(el("button", { onclick: function () { limit = rows.length; draw(); } },
        "show all " + rows.length + " documents"));
    }
    draw();
    s.appendChild(holder);
    return s;
  }

  // ---- the document view ---------------------------------------------------------------------
  var state = { doc: "", label: "", kind: "", comparison: "", position: -1 };
  var listing = [];   // the disagreements (or clusters) the filters keep: {doc, item | cluster}
  var view, info, status, docSelect;

  function spanOf(docIndex, annotator, index) {
    var d = DOCS.documents[docIndex];
    return index === null || index === undefined ? null : d.spans[annotator][index];
  }
  function fragmentsText(fragments) { return fragments.map(function (f) { return f[0] + "-" + f[1]; }).join(";"); }
  function codePoints(d) { if (!d._cp) d._cp = d.text === null ? null : Array.from(d.text); return d._cp; }
  function spanText(d, span) {
    var cp = codePoints(d);
    if (!cp || !span) return "";
    return span[0].map(function (f) { return cp.slice(f[0], f[1]).join(""); }).join(" … ");
  }


  // an entry of the listing (a classified item or a cluster) is kept by a kind filter's choice
  // when one of the choice's tags is among the entry's
  var CHOICES = {};
  VIEW.kind_filter.forEach(function (c) { CHOICES[c.value] = c.keeps; });
  function keeps(tags) {
    var wanted = CHOICES[state.kind];
    return tags.some(function (t) { return wanted.indexOf(t) >= 0; });
  }
  function clusterTags(c) {
    var tags = c.kinds.concat([c.kept ? "kept" : "not_kept"]);
    if (c.kinds.length) tags.push("to_adjudicate");
    return tags;
  }

  function buildListing() {
    listing = [];
    DOCS.documents.forEach(function (d, k) {
      if (state.doc !== "" && d.id !== state.doc) return;
      d.items.forEach(function (item, n) {
        if (!keeps([item[1]])) return;
        if (state.comparison !== "" && item[0] !== +state.comparison) return;
        if (state.label !== "") {
          var comp = VIEW.comparisons[item[0]];
          var a = spanOf(k, comp.first, item[2]), b = spanOf(k, comp.second, item[3]);
          if (!(a && a[1] === state.label) && !(b && b[1] === state.label)) return;
        }
        listing.push({ doc: k, item: n });
      });
      (d.clusters || []).forEach(function (c, n) {
        if (state.label !== "" && c.span[1] !== state.label && !c.members.some(function (m) { return d.spans[m[0]][m[1]][1] === state.label; })) return;
        if (keeps(clusterTags(c))) listing.push({ doc: k, cluster: n });
      });
    });
    state.position = -1;
    updateStatus();
  }

  function updateStatus() {
    var what = VIEW.unit;
    status.textContent = listing.length ? (state.position >= 0 ? what + " " + (state.position + 1) + " of " + listing.length
      : listing.length + " " + what + "(s)") : "no " + what + " with these filters";
    status.setAttribute("data-count", listing.length);
    status.setAttribute("data-position", state.position);
  }

  function step(delta) {
    if (!listing.length) return;
    state.position = state.position < 0 ? (delta > 0 ? 0 : listing.length - 1) : (state.position + delta + listing.length) % listing.length;
    var entry = listing[state.position];
    renderDocument(entry.doc, entry);
    updateStatus();
  }

  function kindsOf(docIndex) {  // (annotator, span index) → [{comparison, kind, partner annotator, partner span}]
    var d = DOCS.documents[docIndex];
    var found = {};
    d.items.forEach(function (item, n) {
      if (state.comparison !== "" && item[0] !== +state.comparison) return;
      var comp = VIEW.comparisons[item[0]];
      [[comp.first, item[2], comp.second, item[3]], [comp.second, item[3], comp.first, item[2]]].forEach(function (side) {
        if (side[1] === null) return;
        var key = side[0] + ":" + side[1];
        (found[key] = found[key] || []).push({ comparison: item[0], kind: item[1], partner: side[2], partnerSpan: side[3], item: n });
      });
    });
    return found;
  }

  function layers(spans) {  // spans' indices in rows whose hulls do not overlap (greedy, by start)
    var order = spans.map(function (s, k) { return k; }).sort(function (x, y) {
      var a = spans[x][0], b = spans[y][0];
      return (a[0][0] - b[0][0]) || (b[b.length - 1][1] - a[a.length - 1][1]) || (x - y);
    });
    var rows = [], ends = [];
    order.forEach(function (k) {
      var f = spans[k][0], start = f[0][0], end = f[f.length - 1][1];
      for (var r = 0; r < rows.length; r++) if (ends[r] <= start) break;
      if (r === rows.length) { rows.push([]); ends.push(0); }
      rows[r].push(k); ends[r] = end;
    });
    return rows;
  }

  // --align-text: the spans that touch changed characters, by document, annotator, fragments and label
  var AFFECTED = {};
  VIEW.changed_spans.forEach(function (e) { AFFECTED[e.join("\u0000")] = true; });

  function kindStyle(kind) { return kind && disagrees(kind) && COLOURS[kind] ? ";--sa-kind:" + COLOURS[kind] : ""; }

  function spanElement(d, cp, annotator, index, span, extra) {
    var f = span[0], start = f[0][0], end = f[f.length - 1][1];
    var touched = annotator !== null && AFFECTED[[d.id, NAMES[annotator], fragmentsText(f), span[1]].join("\u0000")];
    if (touched) extra = Object.assign({}, extra || {}, { "data-text-changed": "true",
      title: ((extra && extra.title) ? extra.title + "\n" : "") + "touches characters changed between the copies' texts (--align-text)" });
    var attrs = Object.assign({ "class": "sa-span", "data-doc": d.id, "data-annotator": annotator === null ? null : NAMES[annotator],
      "data-start": start, "data-end": end, "data-fragments": fragmentsText(f), "data-label": span[1],
      "data-index": index, style: labelStyle(span[1]) + kindStyle(extra && extra["data-kind"]) }, extra || {});
    var node = el("span", attrs);
    if (cp) {
      var at = start;
      f.forEach(function (frag) {
        if (frag[0] > at) node.appendChild(el("span", { "class": "sa-gap" }, cp.slice(at, frag[0]).join("")));
        node.appendChild(document.createTextNode(cp.slice(frag[0], frag[1]).join("")));
        at = frag[1];
      });
    } else node.appendChild(document.createTextNode("[" + fragmentsText(f) + "]"));
    node.appendChild(el("span", { "class": "sa-label" }, span[1]));
    return node;
  }

  function lane(d, cp, name, spans, makeAttrs) {
    var box = el("div", { "class": "sa-lane", "data-lane": name }, el("div", { "class": "sa-lane-name" }, name));
    var visible = spans.map(function (s, k) { return k; }).filter(function (k) { return state.label === "" || spans[k][1] === state.label; });
    var sub = visible.map(function (k) { return spans[k]; });
    var rows = layers(sub);
    if (!rows.length) rows = [[]];
    rows.forEach(function (row) {
      var layer = el("div", { "class": "sa-layer" });
      var at = 0;
      row.sort(function (x, y) { return sub[x][0][0][0] - sub[y][0][0][0]; });
      row.forEach(function (r) {
        var k = visible[r], f = spans[k][0], start = f[0][0], end = f[f.length - 1][1];
        if (cp && start > at) layer.appendChild(document.createTextNode(cp.slice(at, start).join("")));
        layer.appendChild(makeAttrs(k, spans[k]));
        at = Math.max(at, end);
      });
      if (cp && at < cp.length) layer.appendChild(document.createTextNode(cp.slice(at).join("")));
      box.appendChild(layer);
    });
    return box;
  }

  function describe(d, annotator, span) {
    if (!span) return "nothing";
    return NAMES[annotator] + " [" + span[1] + "] “" + spanText(d, span) + "” (" + fragmentsText(span[0]) + ")";
  }

  var rendered = null;  // what the view shows: the document and the filters it was drawn with


  function renderDocument(docIndex, entry) {
    var d = DOCS.documents[docIndex];
    var cp = codePoints(d);
    var key = [docIndex, state.label, state.kind, state.comparison].join("\u0000");
    info.textContent = "";
    ["data-doc", "data-kind", "data-comparison", "data-cluster", "data-first", "data-second"].forEach(function (a) { info.removeAttribute(a); });
    docSelect.value = state.doc;
    if (rendered === key && view.firstChild) {  // the same drawing: only the current entry moves
      Array.prototype.forEach.call(view.querySelectorAll(".sa-current"), function (n) { n.classList.remove("sa-current"); });
      if (entry) markEntry(d, docIndex, entry, view.firstChild);
      return;
    }
    rendered = key;
    view.textContent = "";
    var box = el("div", { "class": "sa-document", "data-doc": d.id });
    box.appendChild(el("h3", null, "document " + d.id, el("span", { "class": "sa-muted" }, " — " + d.disagreements + " " + VIEW.per_document)));
    var members = NAMES.map(function (n, k) { return k; });
    if (state.comparison !== "") {
      var comp = VIEW.comparisons[+state.comparison];
      members = [comp.first, comp.second];
    }
    // a design where each document is annotated by some of the annotators (agree --documents pairwise,
    // merge --documents present): only the lanes of those who have it
    members = members.filter(function (a) { return d.spans[a] != null; });
    var kinds = kindsOf(docIndex);
    var clusterOf = {};
    (d.clusters || []).forEach(function (c, n) { c.members.forEach(function (m) { clusterOf[m[0] + ":" + m[1]] = n; }); });
    members.forEach(function (a) {
      box.appendChild(lane(d, cp, VIEW.lanes[a], d.spans[a], function (k, span) {
        var extra = {};
        var n = clusterOf[a + ":" + k];
        if (n !== undefined) { extra["data-cluster"] = n; extra.title = "cluster " + (n + 1); }
        var found = (kinds[a + ":" + k] || []).filter(function (x) { return disagrees(x.kind); });
        if (found.length) {
          extra["data-kind"] = found[0].kind;
          extra["data-kinds"] = found.map(function (x) { return x.comparison + ":" + x.kind; }).join(" ");
          extra.title = found.map(function (x) {
            return comparisonName(x.comparison) + ": " + x.kind + (x.partnerSpan !== null ? ", aligned with " + describe(d, x.partner, d.spans[x.partner][x.partnerSpan]) : "");
          }).join("\n");
          if (state.kind !== "" && !found.some(function (x) { return x.kind === state.kind; })) extra["class"] = "sa-span sa-dim";
        }
        return spanElement(d, cp, a, k, span, extra);
      }));
    });
    if (VIEW.proposed_lane !== null) {
      box.appendChild(lane(d, cp, VIEW.proposed_lane, d.clusters.map(function (c) { return c.span; }), function (n, span) {
        var c = d.clusters[n];
        return spanElement(d, cp, null, n, span, { "class": "sa-span sa-cluster", "data-cluster": n, "data-kept": c.kept ? "true" : "false",
          "data-votes": c.votes, "data-cluster-kinds": c.kinds.join(" "),
          title: (c.kept ? "kept" : "dropped") + ", " + c.votes + " vote(s)" + (c.kinds.length ? "; " + c.kinds.join(", ") : "") });
      }));
      box.appendChild(clusterTable(d, docIndex));
    }
    if (VIEW.item_columns !== null) box.appendChild(itemTable(d, docIndex));
    view.appendChild(box);
    if (entry) markEntry(d, docIndex, entry, box);
  }

  function markEntry(d, docIndex, entry, box) {
    var nodes = [];
    if (entry.cluster !== undefined) {
      var c = d.clusters[entry.cluster];
      nodes = Array.prototype.slice.call(box.querySelectorAll('[data-cluster="' + entry.cluster + '"]'));
      info.setAttribute("data-doc", d.id);
      info.setAttribute("data-cluster", entry.cluster);
      info.setAttribute("data-kind", c.kinds.join(" "));
      var holders = d.spans.filter(function (x) { return x != null; }).length;
      var k = VIEW.min_votes === null ? Math.floor(holders / 2) + 1 : VIEW.min_votes;
      info.appendChild(el("b", null, (c.kept ? "kept" : "dropped") + ", " + c.votes + " of " + holders + " vote(s) (K = " + k + ")"));
      info.appendChild(document.createTextNode(": proposed [" + c.span[1] + "] “" + spanText(d, c.span) + "”" +
        (c.kinds.length ? " — to adjudicate: " + c.kinds.join(", ") : " — unanimous enough, no decision needed")));
    } else {
      var item = d.items[entry.item];
      var comp = VIEW.comparisons[item[0]];
      [[comp.first, item[2]], [comp.second, item[3]]].forEach(function (side) {
        if (side[1] === null) return;
        var node = box.querySelector('.sa-span[data-annotator="' + cssEscape(NAMES[side[0]]) + '"][data-index="' + side[1] + '"]');
        if (node) nodes.push(node);
      });
      info.setAttribute("data-doc", d.id);
      info.setAttribute("data-kind", item[1]);
      info.setAttribute("data-comparison", item[0]);
      var first = spanOf(docIndex, comp.first, item[2]), second = spanOf(docIndex, comp.second, item[3]);
      info.setAttribute("data-first", first ? fragmentsText(first[0]) + "|" + first[1] : "");
      info.setAttribute("data-second", second ? fragmentsText(second[0]) + "|" + second[1] : "");
      info.appendChild(el("b", null, item[1]));
      info.appendChild(document.createTextNode(" (" + comparisonName(item[0]) + "): " + describe(d, comp.first, first) +
        (first && second ? " aligned with " : " — ") + describe(d, comp.second, second)));
    }
    nodes.forEach(function (n) { n.classList.add("sa-current"); });
    if (nodes.length && nodes[0].scrollIntoView) nodes[0].scrollIntoView({ block: "center" });
  }

  function cssEscape(s) { return window.CSS && CSS.escape ? CSS.escape(s) : String(s).replace(/["\\]/g, "\\$&"); }

  function itemTable(d, docIndex) {
    var rows = [];
    d.items.forEach(function (item, n) {
      if (!disagrees(item[1])) return;
      var comp = VIEW.comparisons[item[0]];
      var a = spanOf(docIndex, comp.first, item[2]), b = spanOf(docIndex, comp.second, item[3]);
      rows.push([comparisonName(item[0]), item[1], a ? a[1] : "", a ? spanText(d, a) : "", b ? b[1] : "", b ? spanText(d, b) : ""]);
    });
    return table(VIEW.item_columns, rows, { textColumns: 6 });
  }

  function clusterTable(d, docIndex) {
    var head = ["cluster", "proposed", "label", "votes", "kept", "to adjudicate"].concat(NAMES);
    var rows = d.clusters.map(function (c, n) {
      return [n + 1, spanText(d, c.span), c.span[1], c.votes + "/" + NAMES.length, c.kept ? "kept" : "dropped", c.kinds.join(", ") || "—"]
        .concat(NAMES.map(function (name, a) {
          return c.members.filter(function (m) { return m[0] === a; }).map(function (m) {
            var s = d.spans[a][m[1]]; return "[" + s[1] + "] " + spanText(d, s);
          }).join("; ") || "—";
        }));
    });
    return table(head, rows, { textColumns: head.length, id: "sa-clusters" });
  }

  function showDocument(id, scroll) {
    var k = shownIndex[id];
    if (k === undefined) { view.textContent = ""; view.appendChild(el("p", { "class": "sa-note" }, "document " + id + " is left out of this report (--report-documents)")); return; }
    state.doc = id;
    buildListing();
    renderDocument(k, null);
    if (scroll) document.getElementById("sa-view").scrollIntoView();
  }


  function documentView() {
    var s = section(VIEW.document_heading, "sa-view");
    var labels = {};
    DOCS.documents.forEach(function (d) { d.spans.forEach(function (spans) { (spans || []).forEach(function (sp) { labels[sp[1]] = true; }); }); });
    function select(id, options, onchange) {
      var node = el("select", { id: id, onchange: onchange }, options.map(function (o) { return el("option", { value: o[0] }, o[1]); }));
      return node;
    }
    docSelect = select("sa-filter-document", [["", "all documents"]].concat(DOCS.documents.map(function (d) {
      return [d.id, d.id + " (" + d.disagreements + ")"];
    })), function (e) { state.doc = e.target.value; buildListing(); if (state.doc) renderDocument(shownIndex[state.doc], null); });
    var noun = VIEW.comparison_filter;
    var controls = el("div", { "class": "sa-controls" },
      el("label", null, "document ", docSelect),
      el("label", null, "label ", select("sa-filter-label", [["", "every label"]].concat(Object.keys(labels).sort().map(function (l) { return [l, l]; })),
        function (e) { state.label = e.target.value; refresh(); })),
      el("label", null, "kind ", select("sa-filter-kind", VIEW.kind_filter.map(function (c) { return [c.value, c.label]; }),
        function (e) { state.kind = e.target.value; refresh(); })),
      noun === null ? null : el("label", null, noun + " ",
        select("sa-filter-pair", [["", "every " + noun]].concat(VIEW.comparisons.map(function (c, k) { return [String(k), c.name]; })),
          function (e) { state.comparison = e.target.value; refresh(); })),
      el("button", { id: "sa-previous", onclick: function () { step(-1); } }, "◀ previous"),
      el("button", { id: "sa-next", onclick: function () { step(1); } }, "next ▶"),
      status = el("span", { id: "sa-status", "class": "sa-muted" }));
    s.appendChild(controls);
    if (VIEW.legend) s.appendChild(el("div", { "class": "sa-legend" }, VIEW.kinds.map(function (k) {
      return el("span", { "class": "sa-span", "data-kind": k.name, title: k.description,
        style: "--sa-colour:#888;--sa-tint:#fff" + kindStyle(k.name) }, k.name);
    })));
    info = el("div", { id: "sa-info" });
    view = el("div", { id: "sa-document" });
    s.appendChild(info);
    s.appendChild(view);
    if (VIEW.selection_note) s.appendChild(el("p", { "class": "sa-muted" }, VIEW.selection_note));
    return s;
  }

  function refresh() {
    buildListing();
    if (state.doc !== "") renderDocument(shownIndex[state.doc], null);
    else if (view.firstChild && view.firstChild.getAttribute) {
      var id = view.firstChild.getAttribute("data-doc");
      if (id !== null && shownIndex[id] !== undefined) renderDocument(shownIndex[id], null);
    }
  }


  // ---- assemble ----------------------------------------------------------------------------
  app.textContent = "";
  app.appendChild(el("h1", null, "spanagree — " + VIEW.title + " report"));
  app.appendChild(el("p", { "class": "sa-muted" }, "spanagree " + VIEW.spanagree + "; annotators: " + NAMES.join(", ")));
  VIEW.summary.forEach(function (s) { app.appendChild(summarySection(s)); });
  app.appendChild(documentsSection());
  app.appendChild(documentView());
  state.kind = VIEW.kind_filter[0].value;
  buildListing();
  if (DOCS.documents.length) {
    if (listing.length) step(1); else renderDocument(0, null);
  }
  document.documentElement.setAttribute("data-ready", "true");
})();
