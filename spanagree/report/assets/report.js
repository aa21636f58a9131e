/* spanagree's HTML report: what the page's script adds to the summary Python wrote (docs/report.md):
   sorting the tables, the documents table whole and filtered, and the document view — each
   disagreement (or cluster) with every annotator's version in rows aligned on a window of the
   text, the whole document on request, previous / next, filters, and links (#doc=…&item=…) that
   open the page on a disagreement. It reads the view model (the spanagree-view block: documents
   table, kinds, words) and the documents (the spanagree-documents block), and never asks which
   command made the page. Plain JavaScript, no library, no network request. Offsets are Unicode
   code points: texts are split with Array.from. */
(function () {
  "use strict";
  var VIEW = JSON.parse(document.getElementById("spanagree-view").textContent);
  var DOCS = JSON.parse(document.getElementById("spanagree-documents").textContent);
  var app = document.getElementById("sa-app");
  var NAMES = VIEW.annotators;
  var COLOURS = {};  // the kinds of disagreement (an item of another kind agrees), and their outlines
  VIEW.kinds.forEach(function (k) { COLOURS[k.name] = k.colour; });
  function disagrees(kind) { return Object.prototype.hasOwnProperty.call(COLOURS, kind); }
  // the window around a disagreement: the lines holding it and this many more on each side, at
  // most this many characters on each side (long lines: cut at a space)
  var CONTEXT_LINES = 1, CONTEXT_CHARACTERS = 160;

  function el(tag, attrs) {
    var node = document.createElement(tag);
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
      else if (key === "oninput") node.addEventListener("input", v);
      else if (key === "style") node.setAttribute("style", v);
      else node.setAttribute(key, v === true ? "" : String(v));
    });
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  function fmt(x) {  // as Python's summary writes figures (spanagree.report.summary.figure)
    if (x === null || x === undefined) return "—";
    if (typeof x === "number") return Number.isInteger(x) ? String(x) : x.toFixed(3);
    return String(x);
  }
  function scaleStyle(scale, v) {  // a stepped scale of the view (spanagree.report.scale)
    if (v === null || v === undefined || !scale) return "background:#dddddd;color:#1d2329";
    var k = 0;
    for (var e = 1; e < scale.edges.length - 1; e++) if (v >= scale.edges[e]) k++;
    return "background:" + scale.colours[k] + ";color:" + scale.inks[k];
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
  function comparisonName(c) { return VIEW.comparisons[c].name; }

  // ---- the summary's tables, sortable by any column --------------------------------------------
  function cellValue(td) {  // a number when the cell shows one, the text otherwise, null for —
    var t = td.textContent;
    if (t === "—" || t === "") return null;
    return /^-?\d/.test(t) && !isNaN(parseFloat(t)) ? parseFloat(t) : t;
  }
  function sortable(tableNode) {
    var heads = tableNode.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, k) {
      th.classList.add("sa-sortable");
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("data-sorted") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("data-sorted"); });
        th.setAttribute("data-sorted", ascending ? "ascending" : "descending");
        var body = tableNode.tBodies[0];
        var rows = Array.prototype.map.call(body.rows, function (r, n) { return { row: r, value: cellValue(r.cells[k]), order: n }; });
        rows.sort(function (a, b) {
          var x = a.value, y = b.value;
          if (x === y) return a.order - b.order;
          if (x === null) return 1;
          if (y === null) return -1;
          if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
          var r = x < y ? -1 : 1;
          return ascending ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r.row); });
      });
    });
  }
  Array.prototype.forEach.call(app.querySelectorAll("table.sa-table[data-sortable]"), sortable);

  // ---- the documents table -------------------------------------------------------------------
  var shownIndex = {};
  DOCS.documents.forEach(function (d, k) { shownIndex[d.id] = k; });
  function docLink(id) { return "#doc=" + encodeURIComponent(id); }

  function documentsTable() {
    var spec = VIEW.documents, columns = spec.columns;
    var holder = document.getElementById("sa-documents-holder");
    var rows = spec.rows.map(function (r, k) { return { values: r, order: k }; });
    var sortKey = spec.sort, ascending = spec.ascending;
    var limit = 300, find = "";
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
      var kept = find === "" ? rows : rows.filter(function (r) { return String(r.values[0]).indexOf(find) >= 0; });
      var head = el("tr", null, columns.map(function (c, k) {
        return el("th", { "class": "sa-sortable" + (k === 0 ? " sa-text" : ""), "data-key": k, onclick: function () {
          if (sortKey === k) ascending = !ascending; else { sortKey = k; ascending = c.ascending; }
          draw();
        } }, c.name + (sortKey === k ? (ascending ? " ▲" : " ▼") : ""));
      }));
      var body = el("tbody", null, kept.slice(0, limit).map(function (r) {
        var id = r.values[0];
        return el("tr", { "class": "sa-row", "data-doc": id, onclick: function (e) {
          if (e.target.closest && e.target.closest("a")) return;  // the link opens it
          go(docLink(id));
        } }, columns.map(function (c, k) {
          if (k === 0) return el("td", { "class": "sa-text" }, el("a", { href: docLink(id) }, id),
            shownIndex[id] === undefined ? el("span", { "class": "sa-muted" }, " (left out)") : null);
          return el("td", { style: c.heat ? scaleStyle(spec.scale, r.values[k]) : null }, fmt(r.values[k]));
        }));
      }));
      holder.textContent = "";
      holder.appendChild(el("label", { "class": "sa-find" }, "find a document ",
        el("input", { id: "sa-documents-find", type: "search", value: find, oninput: function (e) {
          find = e.target.value; draw(); var box = document.getElementById("sa-documents-find"); box.focus();
          box.setSelectionRange(find.length, find.length);
        } })));
      holder.appendChild(el("table", { "class": "sa-table", id: "sa-document-table" }, el("thead", null, head), body));
      if (kept.length > limit) holder.appendChild(el("button", { id: "sa-documents-all", onclick: function () { limit = rows.length; draw(); } },
        "show all " + kept.length + " documents"));
    }
    draw();
  }

  // ---- the document view ---------------------------------------------------------------------
  var state = { doc: "", label: "", kind: "", comparison: "", position: -1, whole: false };
  var listing = [];   // the disagreements (or clusters) the filters keep: {doc, item | cluster}
  var view, info, status, docSelect, wholeButton;

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
  function hull(span) { var f = span[0]; return [f[0][0], f[f.length - 1][1]]; }

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
    render(entry.doc, entry, true);
    updateStatus();
  }

  function kindsOf(docIndex) {  // (annotator, span index) → [{comparison, kind, partner annotator, partner span}]
    var d = DOCS.documents[docIndex];
    if (d._kinds && d._kinds.comparison === state.comparison) return d._kinds.found;
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
    d._kinds = { comparison: state.comparison, found: found };
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

  // a span's element; with clip [from, to) only the part of its text inside (the window)
  function spanElement(d, cp, annotator, index, span, extra, clip) {
    var f = span[0], start = f[0][0], end = f[f.length - 1][1];
    var touched = annotator !== null && AFFECTED[[d.id, NAMES[annotator], fragmentsText(f), span[1]].join("\u0000")];
    if (touched) extra = Object.assign({}, extra || {}, { "data-text-changed": "true",
      title: ((extra && extra.title) ? extra.title + "\n" : "") + "touches characters changed between the copies' texts (--align-text)" });
    var from = clip ? clip[0] : 0, to = clip ? clip[1] : Infinity;
    var attrs = Object.assign({ "class": "sa-span", "data-doc": d.id, "data-annotator": annotator === null ? null : NAMES[annotator],
      "data-start": start, "data-end": end, "data-fragments": fragmentsText(f), "data-label": span[1],
      "data-index": index, "data-clipped": start < from || end > to ? "true" : null,
      style: labelStyle(span[1]) + kindStyle(extra && extra["data-kind"]) }, extra || {});
    var node = el("span", attrs);
    if (cp) {
      var at = Math.max(start, from);
      f.forEach(function (frag) {
        var s = Math.max(frag[0], from), e = Math.min(frag[1], to);
        if (s > at && at < to) node.appendChild(el("span", { "class": "sa-gap" }, cp.slice(at, Math.min(s, to)).join("")));
        if (e > s) node.appendChild(document.createTextNode(cp.slice(s, e).join("")));
        at = Math.max(at, frag[1]);
      });
    } else node.appendChild(document.createTextNode("[" + fragmentsText(f) + "]"));
    node.appendChild(el("span", { "class": "sa-label" }, span[1]));
    return node;
  }

  // a lane: a name and the text in rows (layers), the visible spans in them; with clip, only
  // the window [from, to) of the text and the spans that overlap it
  function lane(d, cp, name, spans, makeAttrs, clip) {
    var box = el("div", { "class": "sa-lane", "data-lane": name }, el("div", { "class": "sa-lane-name" }, name));
    var from = clip ? clip[0] : 0, to = clip ? clip[1] : (cp ? cp.length : Infinity);
    var visible = spans.map(function (s, k) { return k; }).filter(function (k) {
      if (state.label !== "" && spans[k][1] !== state.label) return false;
      var h = hull(spans[k]);
      return !clip || (h[0] < to && h[1] > from) || (h[0] === h[1] && h[0] >= from && h[0] <= to);
    });
    var sub = visible.map(function (k) { return spans[k]; });
    var rows = layers(sub);
    if (!rows.length) rows = [[]];
    rows.forEach(function (row) {
      var layer = el("div", { "class": "sa-layer" });
      var at = from;
      row.sort(function (x, y) { return sub[x][0][0][0] - sub[y][0][0][0]; });
      row.forEach(function (r) {
        var k = visible[r], h = hull(spans[k]), start = Math.max(h[0], from);
        if (cp && start > at) layer.appendChild(document.createTextNode(cp.slice(at, start).join("")));
        layer.appendChild(makeAttrs(k, spans[k]));
        at = Math.max(at, Math.min(h[1], to));
      });
      if (cp && at < to) layer.appendChild(document.createTextNode(cp.slice(at, to).join("")));
      box.appendChild(layer);
    });
    return box;
  }

  function describe(d, annotator, span) {
    if (!span) return "nothing";
    return NAMES[annotator] + " [" + span[1] + "] “" + spanText(d, span) + "” (" + fragmentsText(span[0]) + ")";
  }

  function members(d) {  // the lanes drawn: the comparison filter's two, or every annotator (who has the document)
    var found = NAMES.map(function (n, k) { return k; });
    if (state.comparison !== "") {
      var comp = VIEW.comparisons[+state.comparison];
      found = [comp.first, comp.second];
    }
    // a design where each document is annotated by some of the annotators (agree --documents pairwise,
    // merge --documents present): only the lanes of those who have it
    return found.filter(function (a) { return d.spans[a] != null; });
  }

  function annotatorSpan(d, docIndex, clusterOf, kinds, a, clip) {  // the attributes of annotator a's k-th span
    return function (k, span) {
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
      return spanElement(d, codePoints(d), a, k, span, extra, clip);
    };
  }
  function clusterSpan(d, clip) {
    return function (n, span) {
      var c = d.clusters[n];
      return spanElement(d, codePoints(d), null, n, span, { "class": "sa-span sa-cluster", "data-cluster": n, "data-kept": c.kept ? "true" : "false",
        "data-votes": c.votes, "data-cluster-kinds": c.kinds.join(" "),
        title: (c.kept ? "kept" : "dropped") + ", " + c.votes + " vote(s)" + (c.kinds.length ? "; " + c.kinds.join(", ") : "") }, clip);
    };
  }
  function clustersOf(d) {
    var clusterOf = {};
    (d.clusters || []).forEach(function (c, n) { c.members.forEach(function (m) { clusterOf[m[0] + ":" + m[1]] = n; }); });
    return clusterOf;
  }

  // the whole document: every lane with the whole text
  function wholeDocument(d, docIndex) {
    var box = el("div", { "class": "sa-document", "data-doc": d.id });
    var kinds = kindsOf(docIndex), clusterOf = clustersOf(d), cp = codePoints(d);
    members(d).forEach(function (a) {
      box.appendChild(lane(d, cp, VIEW.lanes[a], d.spans[a], annotatorSpan(d, docIndex, clusterOf, kinds, a, null), null));
    });
    if (VIEW.proposed_lane !== null) {
      box.appendChild(lane(d, cp, VIEW.proposed_lane, d.clusters.map(function (c) { return c.span; }), clusterSpan(d, null), null));
    }
    return box;
  }

  function entryHull(d, docIndex, entry) {  // [start, end) of every span of the entry
    var spans = [];
    if (entry.cluster !== undefined) {
      var c = d.clusters[entry.cluster];
      spans.push(c.span);
      c.members.forEach(function (m) { spans.push(d.spans[m[0]][m[1]]); });
    } else {
      var item = d.items[entry.item], comp = VIEW.comparisons[item[0]];
      [spanOf(docIndex, comp.first, item[2]), spanOf(docIndex, comp.second, item[3])].forEach(function (s) { if (s) spans.push(s); });
    }
    var hs = spans.map(hull);
    return [Math.min.apply(null, hs.map(function (h) { return h[0]; })), Math.max.apply(null, hs.map(function (h) { return h[1]; }))];
  }

  function textWindow(cp, start, end) {  // [from, to): the lines around [start, end), CONTEXT_* at most
    var n = cp.length, from = start, to = end, k;
    function lineStart(i) { while (i > 0 && cp[i - 1] !== "\n") i--; return i; }
    function lineEnd(i) { while (i < n && cp[i] !== "\n") i++; return i; }
    from = lineStart(from);
    for (k = 0; k < CONTEXT_LINES && from > 0; k++) from = lineStart(from - 1);
    to = lineEnd(to);
    for (k = 0; k < CONTEXT_LINES && to < n; k++) to = lineEnd(to + 1);
    if (start - from > CONTEXT_CHARACTERS) {
      from = start - CONTEXT_CHARACTERS;
      for (k = from; k < from + 30 && k < start; k++) if (/\s/.test(cp[k])) { from = k + 1; break; }
    }
    if (to - end > CONTEXT_CHARACTERS) {
      to = end + CONTEXT_CHARACTERS;
      for (k = to; k > to - 30 && k > end; k--) if (/\s/.test(cp[k - 1])) { to = k - 1; break; }
    }
    while (from < start && cp[from] === "\n") from++;  // no blank line first or last
    while (to > end && cp[to - 1] === "\n") to--;
    return [from, to];
  }

  // what annotator a marked over [start, end): each span with its kind in each comparison and
  // what it was aligned with (or, for a cluster, the member spans)
  function versions(d, docIndex, a, entry, around) {
    var line = el("div", { "class": "sa-versions", "data-annotator": NAMES[a] });
    var kinds = kindsOf(docIndex), clusterOf = clustersOf(d);
    var spans = d.spans[a], parts = [];
    spans.forEach(function (s, k) {
      var h = hull(s);
      if (!(h[0] < around[1] && h[1] > around[0])) return;
      if (state.label !== "" && s[1] !== state.label) return;
      if (entry.cluster !== undefined) {  // a cluster: which cluster each of the annotator's spans there is in
        var n = clusterOf[a + ":" + k], c = d.clusters[n];
        parts.push(el("div", { "class": "sa-version", "data-in-cluster": n },
          el("b", null, "[" + s[1] + "] “" + spanText(d, s) + "”"), " (" + fragmentsText(s[0]) + ") — " + (n === entry.cluster
            ? "in this cluster" : "in cluster " + (n + 1) + ": " + (c.kept ? "kept" : "dropped") + ", " + c.votes + " vote(s)")));
        return;
      }
      var found = kinds[a + ":" + k] || [];
      var said = found.map(function (x) {
        return comparisonName(x.comparison) + ": " + x.kind + (x.partnerSpan !== null
          ? " with " + describe(d, x.partner, d.spans[x.partner][x.partnerSpan]) : " (no span of " + NAMES[x.partner] + ")");
      });
      parts.push(el("div", { "class": "sa-version", "data-kinds": found.map(function (x) { return x.comparison + ":" + x.kind; }).join(" ") },
        el("b", null, "[" + s[1] + "] “" + spanText(d, s) + "”"), " (" + fragmentsText(s[0]) + ")" + (said.length ? " — " + said.join("; ") : "")));
    });
    if (!parts.length) parts.push(el("div", { "class": "sa-version sa-muted" }, "no span here"));
    append(line, parts);
    return line;
  }

  // the window: every annotator's version in rows aligned on the same stretch of text
  function windowView(d, docIndex, entry) {
    var cp = codePoints(d), around = entryHull(d, docIndex, entry);
    var clip = cp ? textWindow(cp, around[0], around[1]) : null;
    var box = el("div", { "class": "sa-window", "data-doc": d.id, "data-from": clip ? clip[0] : null, "data-to": clip ? clip[1] : null });
    if (clip && clip[0] > 0) box.appendChild(el("div", { "class": "sa-muted sa-cut" }, "… " + clip[0] + " characters before"));
    var kinds = kindsOf(docIndex), clusterOf = clustersOf(d);
    members(d).forEach(function (a) {
      var row = lane(d, cp, VIEW.lanes[a], d.spans[a], annotatorSpan(d, docIndex, clusterOf, kinds, a, clip), clip);
      row.appendChild(versions(d, docIndex, a, entry, around));
      box.appendChild(row);
    });
    if (VIEW.proposed_lane !== null) {
      var row = lane(d, cp, VIEW.proposed_lane, d.clusters.map(function (c) { return c.span; }), clusterSpan(d, clip), clip);
      var c = d.clusters[entry.cluster];
      row.appendChild(el("div", { "class": "sa-versions" }, (c.kept ? "kept" : "dropped") + ", " + c.votes + " vote(s)" +
        (c.kinds.length ? "; to adjudicate: " + c.kinds.join(", ") : "")));
      box.appendChild(row);
    }
    if (clip && cp && clip[1] < cp.length) box.appendChild(el("div", { "class": "sa-muted sa-cut" }, "… " + (cp.length - clip[1]) + " characters after"));
    return box;
  }

  var drawn = { key: null, whole: null };  // what the view shows: the document and filters it was drawn with
  var drawing, itemsHolder;

  function render(docIndex, entry, scroll) {
    var d = DOCS.documents[docIndex];
    var key = [docIndex, state.label, state.kind, state.comparison].join("\u0000");
    info.textContent = "";
    ["data-doc", "data-kind", "data-comparison", "data-cluster", "data-first", "data-second", "data-item"].forEach(function (a) { info.removeAttribute(a); });
    docSelect.value = state.doc;
    view.setAttribute("data-doc", d.id);
    if (drawn.key !== key || !view.firstChild) {
      drawn.key = key;
      drawn.whole = null;
      view.textContent = "";
      view.appendChild(el("h3", null, "document " + d.id, el("span", { "class": "sa-muted" }, " — " + d.disagreements + " " + VIEW.per_document +
        (d.text !== null ? ", " + codePoints(d).length + " characters" : ""))));
      drawing = el("div", { "class": "sa-drawing" });
      view.appendChild(drawing);
      itemsHolder = el("div");
      view.appendChild(itemsHolder);
      if (VIEW.proposed_lane !== null) itemsHolder.appendChild(clusterTable(d, docIndex));
      if (VIEW.item_columns !== null) itemsHolder.appendChild(itemTable(d, docIndex));
    }
    var whole = state.whole || !entry;
    view.setAttribute("data-whole", whole ? "true" : "false");
    wholeButton.textContent = state.whole ? "window around each " + VIEW.unit : "whole document";
    if (whole) {
      if (drawn.whole !== key) {
        drawing.textContent = "";
        drawing.appendChild(wholeDocument(d, docIndex));
        drawn.whole = key;
      }
      Array.prototype.forEach.call(drawing.querySelectorAll(".sa-current"), function (n) { n.classList.remove("sa-current"); });
    } else {
      drawn.whole = null;
      drawing.textContent = "";
      drawing.appendChild(windowView(d, docIndex, entry));
    }
    if (entry) {
      var nodes = describeEntry(d, docIndex, entry);
      nodes.forEach(function (n) { n.classList.add("sa-current"); });
      if (scroll && whole && nodes.length && nodes[0].scrollIntoView) nodes[0].scrollIntoView({ block: "center" });
    }
  }

  function hashOf(d, entry) {
    return docLink(d.id) + (entry.cluster !== undefined ? "&cluster=" + entry.cluster : "&item=" + entry.item);
  }

  // the info panel's words on an entry, and the span elements it marks
  function describeEntry(d, docIndex, entry) {
    var nodes = [];
    info.setAttribute("data-doc", d.id);
    if (entry.cluster !== undefined) {
      var c = d.clusters[entry.cluster];
      nodes = Array.prototype.slice.call(drawing.querySelectorAll('[data-cluster="' + entry.cluster + '"]'));
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
        var node = drawing.querySelector('.sa-span[data-annotator="' + cssEscape(NAMES[side[0]]) + '"][data-index="' + side[1] + '"]');
        if (node) nodes.push(node);
      });
      info.setAttribute("data-item", entry.item);
      info.setAttribute("data-kind", item[1]);
      info.setAttribute("data-comparison", item[0]);
      var first = spanOf(docIndex, comp.first, item[2]), second = spanOf(docIndex, comp.second, item[3]);
      info.setAttribute("data-first", first ? fragmentsText(first[0]) + "|" + first[1] : "");
      info.setAttribute("data-second", second ? fragmentsText(second[0]) + "|" + second[1] : "");
      info.appendChild(el("b", null, item[1]));
      info.appendChild(document.createTextNode(" (" + comparisonName(item[0]) + "): " + describe(d, comp.first, first) +
        (first && second ? " aligned with " : " — ") + describe(d, comp.second, second)));
    }
    info.appendChild(document.createTextNode(" "));
    info.appendChild(el("a", { href: hashOf(d, entry), id: "sa-link", title: "a link that opens the page on this " + VIEW.unit }, "link"));
    return nodes;
  }

  function cssEscape(s) { return window.CSS && CSS.escape ? CSS.escape(s) : String(s).replace(/["\\]/g, "\\$&"); }

  function itemTable(d, docIndex) {
    var rows = [];
    d.items.forEach(function (item, n) {
      if (!disagrees(item[1])) return;
      var comp = VIEW.comparisons[item[0]];
      var a = spanOf(docIndex, comp.first, item[2]), b = spanOf(docIndex, comp.second, item[3]);
      rows.push([el("td", { "class": "sa-text" }, el("a", { href: hashOf(d, { item: n }) }, comparisonName(item[0]))),
        item[1], a ? a[1] : "", a ? spanText(d, a) : "", b ? b[1] : "", b ? spanText(d, b) : ""]);
    });
    return table(VIEW.item_columns, rows, { textColumns: 6, id: "sa-items" });
  }

  function clusterTable(d, docIndex) {
    var head = ["cluster", "proposed", "label", "votes", "kept", "to adjudicate"].concat(NAMES);
    var rows = d.clusters.map(function (c, n) {
      return [el("td", { "class": "sa-text" }, el("a", { href: hashOf(d, { cluster: n }) }, String(n + 1))),
        spanText(d, c.span), c.span[1], c.votes + "/" + NAMES.length, c.kept ? "kept" : "dropped", c.kinds.join(", ") || "—"]
        .concat(NAMES.map(function (name, a) {
          return c.members.filter(function (m) { return m[0] === a; }).map(function (m) {
            var s = d.spans[a][m[1]]; return "[" + s[1] + "] " + spanText(d, s);
          }).join("; ") || "—";
        }));
    });
    return table(head, rows, { textColumns: head.length, id: "sa-clusters" });
  }

  function leftOut(id) {
    view.textContent = "";
    view.appendChild(el("p", { "class": "sa-note" }, "document " + id + " is left out of this report (--report-documents)"));
  }

  function showDocument(id) {  // a document and its first entry (the whole document when it has none)
    var k = shownIndex[id];
    if (k === undefined) { leftOut(id); return; }
    state.doc = id;
    buildListing();
    if (listing.length) step(1); else render(k, null, false);
  }

  // #doc=ID opens a document, #doc=ID&item=N (&cluster=N) one of its entries
  function openHash() {
    var hash = location.hash.replace(/^#/, "");
    if (hash.indexOf("doc=") < 0) return false;
    var params = {};
    hash.split("&").forEach(function (p) { var at = p.indexOf("="); if (at > 0) params[p.slice(0, at)] = decodeURIComponent(p.slice(at + 1)); });
    var id = params.doc, k = shownIndex[id];
    if (k === undefined) { leftOut(id); }
    else if (params.item === undefined && params.cluster === undefined) showDocument(id);
    else {
      var entry = params.cluster !== undefined ? { doc: k, cluster: +params.cluster } : { doc: k, item: +params.item };
      var d = DOCS.documents[k];
      if ((entry.item !== undefined && !d.items[entry.item]) || (entry.cluster !== undefined && !(d.clusters || [])[entry.cluster])) showDocument(id);
      else {
        if (state.doc !== "" && state.doc !== id) state.doc = "";
        var found = position(entry);
        if (found < 0) {  // the filters hide it: back to the defaults
          state.label = ""; state.comparison = ""; state.kind = VIEW.kind_filter[0].value;
          resetControls();
          found = position(entry);
        }
        state.position = found;
        render(k, entry, false);
        updateStatus();
      }
    }
    document.getElementById("sa-view").scrollIntoView();
    return true;
  }
  function position(entry) {
    buildListing();
    for (var n = 0; n < listing.length; n++) {
      var e = listing[n];
      if (e.doc === entry.doc && e.item === entry.item && e.cluster === entry.cluster) return n;
    }
    return -1;
  }
  function go(hash) {
    if (location.hash === hash) openHash(); else location.hash = hash;
  }

  var controls = {};
  function resetControls() {
    controls.label.value = state.label;
    controls.kind.value = state.kind;
    if (controls.pair) controls.pair.value = state.comparison;
    docSelect.value = state.doc;
  }

  function documentView() {
    var s = document.getElementById("sa-view");
    var labels = {};
    DOCS.documents.forEach(function (d) { d.spans.forEach(function (spans) { (spans || []).forEach(function (sp) { labels[sp[1]] = true; }); }); });
    function select(id, options, onchange) {
      return el("select", { id: id, onchange: onchange }, options.map(function (o) { return el("option", { value: o[0] }, o[1]); }));
    }
    docSelect = select("sa-filter-document", [["", "all documents"]].concat(DOCS.documents.map(function (d) {
      return [d.id, d.id + " (" + d.disagreements + ")"];
    })), function (e) { state.doc = e.target.value; if (state.doc) showDocument(state.doc); else { buildListing(); step(1); } });
    var noun = VIEW.comparison_filter;
    controls.label = select("sa-filter-label", [["", "every label"]].concat(Object.keys(labels).sort().map(function (l) { return [l, l]; })),
      function (e) { state.label = e.target.value; refresh(); });
    controls.kind = select("sa-filter-kind", VIEW.kind_filter.map(function (c) { return [c.value, c.label]; }),
      function (e) { state.kind = e.target.value; refresh(); });
    controls.pair = noun === null ? null : select("sa-filter-pair", [["", "every " + noun]].concat(VIEW.comparisons.map(function (c, k) { return [String(k), c.name]; })),
      function (e) { state.comparison = e.target.value; refresh(); });
    wholeButton = el("button", { id: "sa-whole", onclick: function () {
      state.whole = !state.whole;
      var entry = state.position >= 0 ? listing[state.position] : null;
      var k = entry ? entry.doc : (state.doc !== "" ? shownIndex[state.doc] : (view.firstChild ? shownIndex[view.getAttribute("data-doc")] : undefined));
      if (k !== undefined) render(k, entry, true);
    } }, "whole document");
    s.appendChild(el("div", { "class": "sa-controls" },
      el("label", null, "document ", docSelect),
      el("label", null, "label ", controls.label),
      el("label", null, "kind ", controls.kind),
      controls.pair === null ? null : el("label", null, noun + " ", controls.pair),
      el("button", { id: "sa-previous", onclick: function () { step(-1); } }, "◀ previous"),
      el("button", { id: "sa-next", onclick: function () { step(1); } }, "next ▶"),
      wholeButton,
      status = el("span", { id: "sa-status", "class": "sa-muted" })));
    if (VIEW.legend) s.appendChild(el("div", { "class": "sa-legend" }, VIEW.kinds.map(function (k) {
      return el("span", { "class": "sa-span", "data-kind": k.name, title: k.description,
        style: "--sa-colour:#888;--sa-tint:#fff" + kindStyle(k.name) }, k.name);
    })));
    info = el("div", { id: "sa-info" });
    view = el("div", { id: "sa-document" });
    s.appendChild(info);
    s.appendChild(view);
    if (VIEW.selection_note) s.appendChild(el("p", { "class": "sa-muted" }, VIEW.selection_note));
  }

  function refresh() {  // the filters changed: the listing again, the first entry it keeps
    buildListing();
    if (listing.length) step(1);
    else if (state.doc !== "") render(shownIndex[state.doc], null, false);
    else { view.textContent = ""; info.textContent = ""; drawn.key = null; }
  }

  // ---- assemble ----------------------------------------------------------------------------
  documentsTable();
  documentView();
  state.kind = VIEW.kind_filter[0].value;
  buildListing();
  window.addEventListener("hashchange", openHash);
  if (!openHash() && DOCS.documents.length) {
    if (listing.length) step(1); else render(0, null, false);  // the page stays at its top
  }
  document.documentElement.setAttribute("data-ready", "true");
})();
