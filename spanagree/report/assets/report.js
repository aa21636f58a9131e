/* spanagree's HTML report: the summary (tables and inline SVG charts) and the document view,
   drawn from the two JSON blocks of the page (docs/report.md). Plain JavaScript, no library,
   no network request. Offsets are Unicode code points: texts are split with Array.from. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("spanagree-data").textContent);
  var DOCS = JSON.parse(document.getElementById("spanagree-documents").textContent);
  var app = document.getElementById("sa-app");
  var SVGNS = "http://www.w3.org/2000/svg";
  var KINDS = ["partial", "wrong_label", "wrong_label_and_boundary", "missed", "spurious"];
  var CLUSTER_KINDS = ["dropped", "boundary_tie", "label_tie", "label_split", "several_spans"];
  var COMMAND = DOCS.command;
  var NAMES = DOCS.annotators;

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

  // ---- the summary -------------------------------------------------------------------------
  var predictions = COMMAND === "score" ? (DATA.predictions || [DATA]) : [];

  function comparisonName(c) {
    var comp = DOCS.comparisons[c];
    return NAMES[comp.first] + " × " + NAMES[comp.second];
  }

  function figures() {
    var s = section("Figures", "sa-figures");
    if (COMMAND === "agree") {
      s.appendChild(table(["first", "second", "a", "b", "c", "precision", "recall", "F1"], DATA.pairs.map(function (p) {
        return [p.annotators[0], p.annotators[1], p.a, p.b, p.c, p.precision, p.recall, heatCell(p.f1)];
      }), { textColumns: 2, id: "sa-pairs" }));
      s.appendChild(el("p", null, "mean pairwise F1 ", el("b", null, fmt(DATA.mean_f1)), " (SD ", fmt(DATA.sd_f1),
        "); pooled F1 ", el("b", null, fmt(DATA.pooled_f1)), " over ", DATA.documents, " documents, match ",
        DATA.match, ", labels ", DATA.labels));
      if (DATA.alpha_u) {  // --unitizing: Krippendorff's unitizing alpha (docs/measures.md)
        var au = DATA.alpha_u;
        s.appendChild(el("p", null, "Krippendorff's unitizing alpha α", el("sub", null, "U"), " ", el("b", { id: "sa-alpha-u" }, fmt(au.overall)),
          " over ", au.characters, " characters of ", au.documents, " documents, ", au.annotators, " annotators"));
        s.appendChild(table(["label", "α_U", "D_O", "D_E"], Object.keys(au.labels).map(function (l) {
          var e = au.labels[l];
          return [l, heatCell(e.alpha), e.observed, e.expected];
        }), { id: "sa-alpha-u-labels" }));
      }
    } else if (COMMAND === "score") {
      // in rank order (by F1) when there are several predictions; the JSON keeps the order given
      var ranked = predictions.slice();
      if (predictions.length > 1) ranked.sort(function (x, y) {
        return (x.rank === null ? Infinity : x.rank) - (y.rank === null ? Infinity : y.rank) || predictions.indexOf(x) - predictions.indexOf(y);
      });
      s.appendChild(table(["rank", "prediction", "gold", "a", "b", "c", "precision", "recall", "F1"], ranked.map(function (p) {
        return [p.rank === undefined ? 1 : (p.rank === null ? "n/a" : p.rank), p.prediction, p.gold, p.a, p.b, p.c, p.precision, p.recall, heatCell(p.f1 !== undefined ? p.f1 : null)];
      }), { textColumns: 3, id: "sa-pairs" }));
      s.appendChild(el("p", null, predictions[0].documents, " documents scored, match ", predictions[0].match,
        ", labels ", predictions[0].labels));
    } else {
      var keys = ["clusters", "kept", "dropped", "boundary_tie", "label_tie", "label_split", "several_spans", "to_adjudicate", "spans"];
      s.appendChild(table(keys, [keys.map(function (k) { return DATA[k]; })], { textColumns: 0, id: "sa-pairs" }));
      s.appendChild(el("p", null, DATA.documents, " documents merged, K = ",
        DATA.min_votes === null ? "a majority of the annotators who have each document" : DATA.min_votes + " of " + NAMES.length + " annotators",
        "; votes per cluster: ", Object.keys(DATA.votes).map(function (v) { return v + ": " + DATA.votes[v]; }).join(", ")));
    }
    (DATA.notes || []).forEach(function (n) { s.appendChild(el("p", { "class": "sa-muted" }, n)); });
    return s;
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
  function comparisonsSection() {
    var entries = DATA.comparisons;
    if (!entries || !entries.length) return null;
    var s = section("Paired comparisons", "sa-comparisons");
    var e0 = entries[0];
    s.appendChild(el("p", { "class": "sa-muted" }, (e0.test === "randomization" ? "approximate randomization" : "paired bootstrap") +
      ", " + e0.resamples + " rounds over " + e0.units + " " + e0.unit + "s, seed " + e0.seed +
      "; Δ = first − second; the interval is the paired bootstrap's; p (Holm) adjusted across the pairs of the same measure"));
    s.appendChild(table(["first", "second", "measure", "Δ", "95% interval", "p", "p (Holm)"], entries.map(function (e) {
      return [e.first, e.second, e.measure, e.difference, e.low === null ? "—" : "[" + fmt(e.low) + ", " + fmt(e.high) + "]",
        e.p_value === null ? null : (e.p_value < 0.001 ? "< 0.001" : e.p_value), e.p_value_holm === null ? null : (e.p_value_holm < 0.001 ? "< 0.001" : e.p_value_holm)];
    }), { textColumns: 3, id: "sa-comparisons-table" }));
    return s;
  }

  function labelsSection() {
    var s = section("Per label F1", "sa-labels");
    if (COMMAND === "agree") {
      var labels = Object.keys(DATA.by_label);
      s.appendChild(table(["label"].concat(DATA.pairs.map(function (p) { return p.annotators.join(" × "); })).concat(["mean", "pooled"]),
        labels.map(function (l) {
          var b = DATA.by_label[l];
          return [l].concat(b.pairs.map(function (p) { return heatCell(p.f1); })).concat([heatCell(b.mean_f1), heatCell(b.pooled_f1)]);
        }), { id: "sa-by-label" }));
    } else {
      var all = {};
      predictions.forEach(function (p) { Object.keys(p.by_label).forEach(function (l) { all[l] = true; }); });
      s.appendChild(table(["label"].concat(predictions.map(function (p) { return p.prediction; })).concat(["support (gold spans)"]),
        Object.keys(all).sort().map(function (l) {
          var support = predictions.map(function (p) { return p.by_label[l] ? p.by_label[l].support : 0; })[0];
          return [l].concat(predictions.map(function (p) { return heatCell(p.by_label[l] ? p.by_label[l].f1 : null); })).concat([support]);
        }), { id: "sa-by-label" }));
    }
    s.appendChild(averagesTable());
    return s;
  }

  // micro, macro and weighted averages over the labels, per pair or prediction (docs/measures.md)
  function averagesTable() {
    var rows = (COMMAND === "agree" ? DATA.pairs : predictions).map(function (p) {
      var name = COMMAND === "agree" ? p.annotators.join(" × ") : p.prediction;
      var cells = [name];
      ["micro", "macro", "weighted"].forEach(function (a) {
        ["precision", "recall", "f1"].forEach(function (k) { cells.push(p.averages ? p.averages[a][k] : null); });
      });
      return cells;
    });
    var head = [COMMAND === "agree" ? "pair" : "prediction"];
    ["micro", "macro", "weighted"].forEach(function (a) { ["P", "R", "F1"].forEach(function (k) { head.push(a + " " + k); }); });
    return el("div", null, el("h3", null, "averages over labels"),
      el("p", { "class": "sa-muted" }, "micro: the summed counts; macro: the mean of the labels' rates; weighted: by support " +
        (COMMAND === "agree" ? "(the mean of both annotators' spans of the label)" : "(the gold's spans of the label)") +
        "; an undefined per-label rate counts 0"),
      table(head, rows, { id: "sa-averages" }));
  }

  function scoreSections() {
    var s = section("Confusion and error kinds", "sa-confusion");
    predictions.forEach(function (p) {
      var conf = p.confusion;
      var max = 1;
      conf.matrix.forEach(function (row) { row.forEach(function (v) { max = Math.max(max, v); }); });
      var box = el("div", { "class": "sa-chart" }, el("h3", null, p.prediction + ": gold (rows) × prediction (columns)"),
        table(["gold \\ prediction"].concat(conf.labels), conf.labels.map(function (l, i) {
          return [l].concat(conf.matrix[i].map(function (v, j) {
            var tint = v ? "background:hsl(" + (i === j ? 120 : 0) + ",60%," + (95 - 35 * v / max).toFixed(0) + "%)" : null;
            return el("td", { style: tint }, v);
          }));
        })));
      var kinds = Object.keys(p.errors).map(function (k) { return [k, p.errors[k]]; });
      box.appendChild(el("h3", null, "error kinds"));
      box.appendChild(barsSvg(kinds, "error kinds"));
      s.appendChild(box);
    });
    return s;
  }

  function kappaSection() {
    if (!DOCS.kappa_curves || !DOCS.kappa_curves.length) return null;
    var s = section("Kappa as a function of d (Hripcsak & Rothschild 2005)", "sa-kappa");
    s.appendChild(el("p", { "class": "sa-muted" }, "Cohen's kappa of a 2×2 table with the span (or token) counts a, b, c and a growing number d of " +
      "negatives tends to the PSA = 2a/(2a+b+c) (dotted line). The token level's actual d is marked."));
    var wrap = el("div", { "class": "sa-charts" });
    var byComparison = {};
    DOCS.kappa_curves.forEach(function (c) { (byComparison[c.comparison] = byComparison[c.comparison] || []).push(c); });
    Object.keys(byComparison).forEach(function (c) {
      var curves = byComparison[c];
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
      wrap.appendChild(el("div", { "class": "sa-chart" }, el("h3", null, comparisonName(+c)), g, legend));
    });
    s.appendChild(wrap);
    return s;
  }

  function bootstrapSection() {
    var runs = COMMAND === "agree" ? (DATA.bootstrap ? [DATA.bootstrap] : []) : predictions.map(function (p) { return p.bootstrap; }).filter(Boolean);
    if (!runs.length) return null;
    var s = section("Bootstrap intervals", "sa-bootstrap");
    var rows = [];
    runs.forEach(function (b) {
      b.pairs.forEach(function (p) { rows.push([p.annotators.join(" × "), intervalText(p.f1), intervalText(p.precision), intervalText(p.recall)]); });
      if (b.mean_f1) rows.push(["mean pairwise F1", intervalText(b.mean_f1), "", ""]);
      if (b.pooled_f1) rows.push(["pooled F1", intervalText(b.pooled_f1), "", ""]);
    });
    s.appendChild(el("p", { "class": "sa-muted" }, runs[0].level * 100 + "% " + runs[0].method + " intervals from " + runs[0].n +
      " resamples of " + runs[0].resampled + " (seed " + runs[0].seed + ")"));
    s.appendChild(table(["", "F1", "precision", "recall"], rows, { id: "sa-intervals" }));
    var W = 420, L = 170, bar = 18;
    var g = sv("svg", { width: W + L, height: rows.length * (bar + 6) + 24, role: "img", "aria-label": "F1 intervals" });
    var x = function (v) { return L + v * (W - 20); };
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      g.appendChild(sv("line", { x1: x(v), x2: x(v), y1: 0, y2: rows.length * (bar + 6), stroke: "#eee" }));
      g.appendChild(sv("text", { x: x(v), y: rows.length * (bar + 6) + 14, "text-anchor": "middle" }, v));
    });
    var k = 0;
    runs.forEach(function (b) {
      var entries = b.pairs.map(function (p) { return [p.annotators.join(" × "), p.f1]; });
      if (b.mean_f1) entries.push(["mean pairwise F1", b.mean_f1]);
      if (b.pooled_f1) entries.push(["pooled F1", b.pooled_f1]);
      entries.forEach(function (e) {
        var y = k * (bar + 6) + bar / 2 + 2;
        g.appendChild(sv("text", { x: L - 6, y: y + 4, "text-anchor": "end" }, e[0]));
        var iv = intervalOf(e[1]);
        if (iv) g.appendChild(sv("line", { x1: x(iv[0]), x2: x(iv[1]), y1: y, y2: y, stroke: "#1f6fd1", "stroke-width": 6, "class": "sa-interval" }));
        k++;
      });
    });
    s.appendChild(el("div", { "class": "sa-chart" }, g));
    return s;
  }
  function intervalOf(v) {
    if (!v) return null;
    if (Array.isArray(v)) return v[0] === null || v[1] === null ? null : v;
    if (v.interval) return intervalOf(v.interval);
    if (v.low !== undefined) return [v.low, v.high];
    return null;
  }
  function intervalText(v) { var iv = intervalOf(v); return iv ? "[" + fmt(iv[0]) + ", " + fmt(iv[1]) + "]" : "—"; }

  // ---- the documents table -------------------------------------------------------------------
  var shownIndex = {};
  DOCS.documents.forEach(function (d, k) { shownIndex[d.id] = k; });

  function documentRows() {
    var source = COMMAND === "score" ? predictions[0].by_document : DATA.by_document;
    var ids = Object.keys(source || {});
    return ids.map(function (id, k) {
      var b = source[id];
      var row = { id: id, order: k };
      if (COMMAND === "agree") { row.f1 = b.mean_f1; row.pooled = b.pooled_f1; }
      else if (COMMAND === "score") {
        row.values = predictions.map(function (p) { return p.by_document[id] ? p.by_document[id].f1 : null; });
        row.f1 = row.values[0];
      } else { row.clusters = b.clusters; row.kept = b.kept; row.f1 = null; row.to_adjudicate = b.to_adjudicate; }
      return row;
    });
  }

  function documentsSection() {
    var s = section("Documents", "sa-documents");
    var rows = documentRows();
    (DOCS.document_f1 || []).forEach(function (m) {
      s.appendChild(el("p", null, m.name + ": per-document F1 mean ", el("b", null, fmt(m.mean)), ", SD ", fmt(m.sd),
        " over ", m.defined, " documents", m.skipped ? " (" + m.skipped + " with F1 undefined skipped)" : ""));
    });
    if (DOCS.selection.note) s.appendChild(el("p", { "class": "sa-note", id: "sa-left-out" }, DOCS.selection.note));
    var columns;
    if (COMMAND === "agree") columns = [["document", "id"], ["mean pairwise F1", "f1"], ["pooled F1", "pooled"]];
    else if (COMMAND === "score") columns = [["document", "id"]].concat(predictions.map(function (p, k) { return ["F1 " + p.prediction, "v" + k]; }));
    else columns = [["document", "id"], ["clusters", "clusters"], ["kept", "kept"], ["to adjudicate", "to_adjudicate"]];
    rows.forEach(function (r) { (r.values || []).forEach(function (v, k) { r["v" + k] = v; }); });
    // --align-text: the copies' texts differed; how many characters, per document (docs/concepts.md)
    var aligned = COMMAND === "score" ? predictions.map(function (p) { return p.aligned_texts; }).filter(Boolean) : [DATA.aligned_texts].filter(Boolean);
    if (aligned.length) {
      var differing = {};
      aligned.forEach(function (a) { Object.keys(a.differing_characters).forEach(function (d) { differing[d] = Math.max(differing[d] || 0, a.differing_characters[d]); }); });
      var affected = aligned.reduce(function (n, a) { return n + a.affected_spans; }, 0);
      s.appendChild(el("p", { "class": "sa-note", id: "sa-aligned-texts" }, Object.keys(differing).length +
        " document(s) whose copies' texts differ were compared through a character alignment (--align-text); " +
        affected + " span(s) touch changed characters that are not whitespace. The column below counts the differing characters."));
      columns.push(["texts differ (characters)", "differing"]);
      rows.forEach(function (r) { r.differing = differing[r.id] || 0; });
    }
    var sortKey = COMMAND === "merge" ? "to_adjudicate" : columns[1][1];
    var ascending = COMMAND !== "merge";
    var limit = 300;
    var holder = el("div");
    function compare(a, b) {
      var x = a[sortKey], y = b[sortKey];
      if (x === y) return a.order - b.order;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      var r = x < y ? -1 : 1;
      return ascending ? r : -r;
    }
    function draw() {
      rows.sort(compare);
      var head = el("tr", null, columns.map(function (c) {
        return el("th", { "class": "sa-sortable" + (c[1] === "id" ? " sa-text" : ""), "data-key": c[1], onclick: function () {
          if (sortKey === c[1]) ascending = !ascending; else { sortKey = c[1]; ascending = c[1] === "id" || COMMAND !== "merge"; }
          draw();
        } }, c[0] + (sortKey === c[1] ? (ascending ? " ▲" : " ▼") : ""));
      }));
      var body = el("tbody", null, rows.slice(0, limit).map(function (r) {
        return el("tr", { "class": "sa-row", "data-doc": r.id, onclick: function () { showDocument(r.id, true); } },
          columns.map(function (c) {
            if (c[1] === "id") return el("td", { "class": "sa-text" }, r.id, shownIndex[r.id] === undefined ? el("span", { "class": "sa-muted" }, " (left out)") : null);
            return c[1] === "f1" || c[1] === "pooled" || c[1][0] === "v" ? heatCell(r[c[1]]) : el("td", null, fmt(r[c[1]]));
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

  function buildListing() {
    listing = [];
    DOCS.documents.forEach(function (d, k) {
      if (state.doc !== "" && d.id !== state.doc) return;
      if (COMMAND === "merge") {
        d.clusters.forEach(function (c, n) {
          if (state.label !== "" && c.span[1] !== state.label && !c.members.some(function (m) { return d.spans[m[0]][m[1]][1] === state.label; })) return;
          var kind = state.kind || "to_adjudicate";
          var keep = kind === "all" ? true : kind === "to_adjudicate" ? c.kinds.length > 0 : kind === "kept" ? c.kept : kind === "not_kept" ? !c.kept : c.kinds.indexOf(kind) >= 0;
          if (keep) listing.push({ doc: k, cluster: n });
        });
        return;
      }
      d.items.forEach(function (item, n) {
        if (item[1] === "correct") return;
        if (state.kind !== "" && item[1] !== state.kind) return;
        if (state.comparison !== "" && item[0] !== +state.comparison) return;
        if (state.label !== "") {
          var comp = DOCS.comparisons[item[0]];
          var a = spanOf(k, comp.first, item[2]), b = spanOf(k, comp.second, item[3]);
          if (!(a && a[1] === state.label) && !(b && b[1] === state.label)) return;
        }
        listing.push({ doc: k, item: n });
      });
    });
    state.position = -1;
    updateStatus();
  }

  function updateStatus() {
    var what = COMMAND === "merge" ? "cluster" : "disagreement";
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
      var comp = DOCS.comparisons[item[0]];
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
  (COMMAND === "score" ? predictions.map(function (p) { return p.aligned_texts; }) : [DATA.aligned_texts]).forEach(function (a) {
    ((a && a.affected) || []).forEach(function (e) {
      if (e.mapped) AFFECTED[[e.document, e.annotator, fragmentsText(e.mapped), e.label].join("\u0000")] = true;
    });
  });

  function spanElement(d, cp, annotator, index, span, extra) {
    var f = span[0], start = f[0][0], end = f[f.length - 1][1];
    var touched = annotator !== null && AFFECTED[[d.id, NAMES[annotator], fragmentsText(f), span[1]].join("\u0000")];
    if (touched) extra = Object.assign({}, extra || {}, { "data-text-changed": "true",
      title: ((extra && extra.title) ? extra.title + "\n" : "") + "touches characters changed between the copies' texts (--align-text)" });
    var attrs = Object.assign({ "class": "sa-span", "data-doc": d.id, "data-annotator": annotator === null ? null : NAMES[annotator],
      "data-start": start, "data-end": end, "data-fragments": fragmentsText(f), "data-label": span[1],
      "data-index": index, style: labelStyle(span[1]) }, extra || {});
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
    box.appendChild(el("h3", null, "document " + d.id, el("span", { "class": "sa-muted" }, " — " + d.disagreements +
      (COMMAND === "merge" ? " cluster(s) to adjudicate" : " disagreement(s)"))));
    var members = NAMES.map(function (n, k) { return k; });
    if (COMMAND !== "merge" && state.comparison !== "") {
      var comp = DOCS.comparisons[+state.comparison];
      members = [comp.first, comp.second];
    }
    // a design where each document is annotated by some of the annotators (agree --documents pairwise,
    // merge --documents present): only the lanes of those who have it
    members = members.filter(function (a) { return d.spans[a] != null; });
    if (COMMAND === "merge") {
      var clusterOf = {};
      d.clusters.forEach(function (c, n) { c.members.forEach(function (m) { clusterOf[m[0] + ":" + m[1]] = n; }); });
      members.forEach(function (a) {
        box.appendChild(lane(d, cp, NAMES[a], d.spans[a], function (k, span) {
          var n = clusterOf[a + ":" + k];
          return spanElement(d, cp, a, k, span, { "data-cluster": n, title: "cluster " + (n + 1) });
        }));
      });
      box.appendChild(lane(d, cp, "merged (proposed spans)", d.clusters.map(function (c) { return c.span; }), function (n, span) {
        var c = d.clusters[n];
        return spanElement(d, cp, null, n, span, { "class": "sa-span sa-cluster", "data-cluster": n, "data-kept": c.kept ? "true" : "false",
          "data-votes": c.votes, "data-cluster-kinds": c.kinds.join(" "),
          title: (c.kept ? "kept" : "dropped") + ", " + c.votes + " vote(s)" + (c.kinds.length ? "; " + c.kinds.join(", ") : "") });
      }));
      box.appendChild(clusterTable(d, docIndex));
    } else {
      var kinds = kindsOf(docIndex);
      members.forEach(function (a) {
        box.appendChild(lane(d, cp, NAMES[a] + (COMMAND === "score" && a === 0 ? " (gold)" : ""), d.spans[a], function (k, span) {
          var found = (kinds[a + ":" + k] || []).filter(function (x) { return x.kind !== "correct"; });
          var extra = {};
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
      box.appendChild(itemTable(d, docIndex));
    }
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
      var k = DOCS.min_votes === null ? Math.floor(holders / 2) + 1 : DOCS.min_votes;
      info.appendChild(el("b", null, (c.kept ? "kept" : "dropped") + ", " + c.votes + " of " + holders + " vote(s) (K = " + k + ")"));
      info.appendChild(document.createTextNode(": proposed [" + c.span[1] + "] “" + spanText(d, c.span) + "”" +
        (c.kinds.length ? " — to adjudicate: " + c.kinds.join(", ") : " — unanimous enough, no decision needed")));
    } else {
      var item = d.items[entry.item];
      var comp = DOCS.comparisons[item[0]];
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
      if (item[1] === "correct") return;
      var comp = DOCS.comparisons[item[0]];
      var a = spanOf(docIndex, comp.first, item[2]), b = spanOf(docIndex, comp.second, item[3]);
      rows.push([comparisonName(item[0]), item[1], a ? a[1] : "", a ? spanText(d, a) : "", b ? b[1] : "", b ? spanText(d, b) : ""]);
    });
    var head = COMMAND === "score" ? ["prediction × gold", "kind", "predicted label", "predicted text", "gold label", "gold text"]
      : ["first × second", "kind", "first label", "first text", "second label", "second text"];
    return table(head, rows, { textColumns: 6 });
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
    var s = section(COMMAND === "merge" ? "Clusters in context" : "Disagreements in context", "sa-view");
    var labels = {};
    DOCS.documents.forEach(function (d) { d.spans.forEach(function (spans) { (spans || []).forEach(function (sp) { labels[sp[1]] = true; }); }); });
    function select(id, options, onchange) {
      var node = el("select", { id: id, onchange: onchange }, options.map(function (o) { return el("option", { value: o[0] }, o[1]); }));
      return node;
    }
    docSelect = select("sa-filter-document", [["", "all documents"]].concat(DOCS.documents.map(function (d) {
      return [d.id, d.id + " (" + d.disagreements + ")"];
    })), function (e) { state.doc = e.target.value; buildListing(); if (state.doc) renderDocument(shownIndex[state.doc], null); });
    var kindOptions = COMMAND === "merge"
      ? [["to_adjudicate", "needing adjudication"], ["all", "every cluster"], ["kept", "kept"], ["not_kept", "dropped (not kept)"]]
        .concat(CLUSTER_KINDS.map(function (k) { return [k, k]; }))
      : [["", "every kind"]].concat(KINDS.map(function (k) { return [k, k]; }));
    var controls = el("div", { "class": "sa-controls" },
      el("label", null, "document ", docSelect),
      el("label", null, "label ", select("sa-filter-label", [["", "every label"]].concat(Object.keys(labels).sort().map(function (l) { return [l, l]; })),
        function (e) { state.label = e.target.value; refresh(); })),
      el("label", null, "kind ", select("sa-filter-kind", kindOptions, function (e) { state.kind = e.target.value; refresh(); })),
      COMMAND === "merge" ? null : el("label", null, COMMAND === "score" ? "prediction " : "pair ",
        select("sa-filter-pair", [["", "every " + (COMMAND === "score" ? "prediction" : "pair")]].concat(DOCS.comparisons.map(function (c, k) { return [String(k), comparisonName(k)]; })),
          function (e) { state.comparison = e.target.value; refresh(); })),
      el("button", { id: "sa-previous", onclick: function () { step(-1); } }, "◀ previous"),
      el("button", { id: "sa-next", onclick: function () { step(1); } }, "next ▶"),
      status = el("span", { id: "sa-status", "class": "sa-muted" }));
    s.appendChild(controls);
    if (COMMAND !== "merge") s.appendChild(el("div", { "class": "sa-legend" }, KINDS.map(function (k) {
      return el("span", { "class": "sa-span", "data-kind": k, style: "--sa-colour:#888;--sa-tint:#fff" }, k);
    })));
    info = el("div", { id: "sa-info" });
    view = el("div", { id: "sa-document" });
    s.appendChild(info);
    s.appendChild(view);
    if (DOCS.selection.note) s.appendChild(el("p", { "class": "sa-muted" }, DOCS.selection.note));
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
  var title = { agree: "Agreement", score: "Scores", merge: "Merge" }[COMMAND];
  app.textContent = "";
  app.appendChild(el("h1", null, "spanagree — " + title + " report"));
  app.appendChild(el("p", { "class": "sa-muted" }, "spanagree " + DOCS.spanagree + "; annotators: " + NAMES.join(", ")));
  app.appendChild(figures());
  if (COMMAND === "agree") {
    app.appendChild(el("div", null, el("h2", null, "Pairwise F1"), el("div", { "class": "sa-chart", id: "sa-heatmap", style: "display:inline-block" },
      heatmapSvg(DATA.matrix.annotators, DATA.matrix.f1))));
  }
  if (COMMAND !== "merge") app.appendChild(labelsSection());
  if (COMMAND === "score") app.appendChild(scoreSections());
  var kappa = kappaSection();
  if (kappa) app.appendChild(kappa);
  var boot = bootstrapSection();
  if (boot) app.appendChild(boot);
  var comparisons = comparisonsSection();
  if (comparisons) app.appendChild(comparisons);
  app.appendChild(documentsSection());
  app.appendChild(documentView());
  buildListing();
  if (DOCS.documents.length) {
    if (listing.length) step(1); else renderDocument(0, null);
  }
  document.documentElement.setAttribute("data-ready", "true");
})();
