// The drill-down of report.html. User text is only ever inserted with textContent.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("veracity-data").textContent);
  var samples = data.samples;
  var metrics = data.metrics;
  var PAGE = 200;
  var shown = PAGE;
  var VERDICTS = { supported: "supported", contradicted: "contradicted", not_enough_info: "not enough info" };

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function token(text) { return String(text).replace(/[^A-Za-z0-9_-]/g, ""); }
  function isNum(x) { return typeof x === "number" && isFinite(x); }
  function fmt(score) { return isNum(score) ? score.toFixed(3) : "—"; }
  function band(score) {
    if (!isNum(score)) { return "none"; }
    return score >= 0.8 ? "good" : score >= 0.5 ? "fair" : "poor";
  }
  function mean(xs) {
    if (!xs.length) { return null; }
    return xs.reduce(function (a, b) { return a + b; }, 0) / xs.length;
  }
  function systemOf(s) { return s.system === null || s.system === undefined ? data.no_system : s.system; }

  var statuses = [];
  var systems = [];
  samples.forEach(function (s, i) {
    s.index = i;
    s.byMetric = {};
    s.results.forEach(function (r) {
      var m = s.byMetric[r.metric] || (s.byMetric[r.metric] = { scores: [], statuses: [] });
      if (isNum(r.score)) { m.scores.push(r.score); }
      m.statuses.push(r.status);
      if (statuses.indexOf(r.status) < 0) { statuses.push(r.status); }
    });
    var means = [];
    Object.keys(s.byMetric).forEach(function (k) {
      var m = s.byMetric[k];
      m.mean = mean(m.scores);
      if (m.mean !== null) { means.push(m.mean); }
    });
    s.meanAll = mean(means);
    if (systems.indexOf(systemOf(s)) < 0) { systems.push(systemOf(s)); }
    s.haystack = [s.id, systemOf(s), s.question_type || "", s.question || "", s.answer || ""]
      .join("\n").toLowerCase();
  });

  function fill(select, label, values) {
    select.appendChild(el("option", null, label)).value = "";
    values.forEach(function (v) { select.appendChild(el("option", null, v)).value = v; });
  }
  fill($("f-metric"), "all metrics", metrics);
  fill($("f-system"), "all systems", systems);
  fill($("f-status"), "any status", statuses);

  var head = $("sample-head");
  ["sample", "system", "type", "question"].concat(metrics).forEach(function (name, i) {
    var th = el("th", i > 3 ? "num metric-head" : null);
    // Long metric names may break after their underscores.
    String(name).split("_").forEach(function (part, k, parts) {
      th.appendChild(document.createTextNode(part + (k < parts.length - 1 ? "_" : "")));
      if (k < parts.length - 1) { th.appendChild(el("wbr")); }
    });
    th.title = name;
    th.scope = "col";
    head.appendChild(th);
  });
  var columns = 4 + metrics.length;

  function matches(s, metric, system, status, query) {
    if (system && systemOf(s) !== system) { return false; }
    var m = metric ? s.byMetric[metric] : null;
    if (metric && !m) { return false; }
    if (status) {
      var seen = m ? m.statuses : s.results.map(function (r) { return r.status; });
      if (seen.indexOf(status) < 0) { return false; }
    }
    return !query || s.haystack.indexOf(query) >= 0;
  }

  function sortKey(s, metric) {
    if (!metric) { return s.meanAll; }
    return s.byMetric[metric] ? s.byMetric[metric].mean : null;
  }

  function selected() {
    var metric = $("f-metric").value;
    var order = $("f-sort").value;
    var query = $("f-search").value.trim().toLowerCase();
    var list = samples.filter(function (s) {
      return matches(s, metric, $("f-system").value, $("f-status").value, query);
    });
    if (order !== "order") {
      var sign = order === "asc" ? 1 : -1;
      list.sort(function (a, b) {
        var x = sortKey(a, metric), y = sortKey(b, metric);
        if (x === null || y === null) { return (x === null) - (y === null) || a.index - b.index; }
        return sign * (x - y) || a.index - b.index;
      });
    }
    return list;
  }

  function scoreCell(s, metric) {
    var m = s.byMetric[metric];
    var td = el("td", "num score");
    if (!m) { td.textContent = ""; return td; }
    if (m.mean !== null) {
      td.textContent = fmt(m.mean);
      td.className += " band-" + band(m.mean);
    } else {
      td.textContent = m.statuses[0];
      td.className += " unscored";
    }
    td.title = metric + ": " + m.statuses.join(", ");
    return td;
  }

  function render() {
    var list = selected();
    var body = $("sample-rows");
    body.replaceChildren();
    list.slice(0, shown).forEach(function (s) {
      var tr = el("tr", "sample-row");
      tr.tabIndex = 0;
      tr.setAttribute("data-index", String(s.index));
      tr.appendChild(el("td", "sample-id", s.id));
      tr.appendChild(el("td", null, systemOf(s)));
      tr.appendChild(el("td", null, s.question_type || ""));
      var q = s.question === undefined ? "" : s.question;
      tr.appendChild(el("td", "question", q.length > 140 ? q.slice(0, 139) + "…" : q));
      metrics.forEach(function (m) { tr.appendChild(scoreCell(s, m)); });
      tr.addEventListener("click", function () { toggle(tr, s); });
      tr.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(tr, s); }
      });
      body.appendChild(tr);
    });
    var count = "Showing " + Math.min(shown, list.length) + " of " + list.length + " matching sample(s)";
    if (data.truncated) { count += " (the page holds " + samples.length + " of " + data.total_samples + ")"; }
    $("sample-count").textContent = count + ". Click a row to open it.";
    $("more").hidden = list.length <= shown;
  }

  function toggle(tr, s) {
    var next = tr.nextElementSibling;
    if (next && next.classList.contains("detail-row")) {
      next.remove();
      tr.classList.remove("open");
      return;
    }
    var row = el("tr", "detail-row");
    var td = el("td");
    td.colSpan = columns;
    var box = detail(s);
    // Keep the drill-down within the visible width when the table scrolls sideways.
    box.style.maxWidth = Math.max($("sample-scroll").clientWidth - 30, 320) + "px";
    td.appendChild(box);
    row.appendChild(td);
    tr.after(row);
    tr.classList.add("open");
  }

  function pair(dl, name, value, cls) {
    if (value === undefined || value === null || value === "") { return; }
    var div = el("div", cls);
    div.appendChild(el("dt", null, name));
    div.appendChild(el("dd", null, value));
    dl.appendChild(div);
  }

  // The conversation before the question, oldest turn first, each turn with its role.
  function turns(dl, history) {
    if (!history || !history.length) { return; }
    var div = el("div", "long");
    div.appendChild(el("dt", null, "earlier turns (" + history.length + ")"));
    var dd = el("dd");
    var ol = el("ol", "history");
    history.forEach(function (t) {
      var li = el("li", "turn");
      li.appendChild(el("span", "role", t.role || "turn"));
      li.appendChild(el("span", "turn-text", t.content));
      ol.appendChild(li);
    });
    dd.appendChild(ol);
    div.appendChild(dd);
    dl.appendChild(div);
  }

  function detail(s) {
    var box = el("div", "sample-detail");
    var texts = el("dl", "sample-texts");
    pair(texts, "sample", s.id);
    pair(texts, "system", systemOf(s));
    pair(texts, "question type", s.question_type);
    turns(texts, s.history);
    pair(texts, "question", s.question, "long");
    pair(texts, "answer", s.answer, "long answer");
    pair(texts, "reference", s.reference, "long");
    box.appendChild(texts);
    if (s.contexts && s.contexts.length) {
      var ctx = el("details", "contexts");
      ctx.appendChild(el("summary", null, "retrieved contexts (" + s.contexts.length + ")"));
      var ol = el("ol", "contexts");
      ol.start = 0;
      s.contexts.forEach(function (c) { ol.appendChild(el("li", null, c)); });
      ctx.appendChild(ol);
      box.appendChild(ctx);
    }
    var iterations = {};
    s.results.forEach(function (r) { iterations[r.iteration] = true; });
    var several = Object.keys(iterations).length > 1;
    s.results.forEach(function (r) { box.appendChild(card(r, s, several)); });
    return box;
  }

  function card(r, s, several) {
    var box = el("article", "metric-card status-" + token(r.status));
    var h = el("h4");
    h.appendChild(el("span", "metric-name", r.metric));
    if (several) { h.appendChild(el("span", "iteration", "iteration " + r.iteration)); }
    h.appendChild(el("span", "score band-" + band(r.score), fmt(r.score)));
    h.appendChild(el("span", "status-badge", r.status));
    box.appendChild(h);
    box.appendChild(el("p", "reason", r.reason));
    details(box, r.details || {}, s);
    return box;
  }

  function verdictList(box, title, items, textKey, cls) {
    if (!Array.isArray(items) || !items.length) { return; }
    box.appendChild(el("h5", null, title));
    var ul = el("ul", cls);
    items.forEach(function (item) {
      var verdict = token(item.verdict || (item.attributed ? "supported" : "not_enough_info"));
      var li = el("li", "verdict verdict-" + verdict);
      var line = el("div", "verdict-line");
      line.appendChild(el("span", "verdict-label", VERDICTS[verdict] || verdict));
      line.appendChild(el("span", "item-text", item[textKey]));
      if (isNum(item.p_supported)) {
        line.appendChild(el("span", "p-supported", "P(supported) " + item.p_supported.toFixed(2)));
      }
      li.appendChild(line);
      if (item.reason) { li.appendChild(el("p", "item-reason", item.reason)); }
      if (item.evidence) { li.appendChild(el("blockquote", "evidence", item.evidence)); }
      if (item.evidence_not_found) {
        li.appendChild(el("p", "evidence-not-found", "the judge's evidence is not in the contexts"));
      }
      ul.appendChild(li);
    });
    box.appendChild(ul);
  }

  function table(box, title, head, rows, cls) {
    if (!rows.length) { return; }
    box.appendChild(el("h5", null, title));
    var t = el("table", "detail-table " + cls);
    var tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    t.appendChild(el("thead")).appendChild(tr);
    var body = t.appendChild(el("tbody"));
    rows.forEach(function (row) {
      var r = el("tr", row.cls || null);
      row.cells.forEach(function (c) { r.appendChild(el("td", null, c)); });
      body.appendChild(r);
    });
    box.appendChild(t);
  }

  function show(value) {
    if (value === null || value === undefined) { return "—"; }
    if (isNum(value)) { return Number.isInteger(value) ? String(value) : value.toFixed(3); }
    if (typeof value !== "object") { return String(value); }
    if (!Array.isArray(value) && Object.keys(value).every(function (k) {
      return value[k] === null || typeof value[k] !== "object";
    })) {
      return Object.keys(value).map(function (k) { return k + " " + show(value[k]); }).join(", ");
    }
    return JSON.stringify(value);
  }

  var DONE = ["claims", "statements", "chunks", "dimensions", "criteria", "components",
    "questions", "notes", "raw_replies", "counts", "n_claims", "n_statements"];

  function details(box, d, s) {
    verdictList(box, "claims", d.claims, "claim", "claims");
    verdictList(box, "reference statements", d.statements, "statement", "statements");
    if (Array.isArray(d.chunks)) {
      table(box, "retrieved chunks", ["#", "relevant", "relevance", "reason", "chunk"],
        d.chunks.map(function (c) {
          var text = s.contexts && s.contexts[c.index] !== undefined ? s.contexts[c.index] : "";
          return { cls: c.relevant ? "relevant" : "irrelevant",
            cells: [show(c.index), c.relevant ? "yes" : "no", show(c.relevance), show(c.reason),
              text.length > 300 ? text.slice(0, 299) + "…" : text] };
        }), "chunks");
    }
    if (Array.isArray(d.dimensions)) {
      table(box, "rubric", ["dimension", "score", "minimum", "reasoning"],
        d.dimensions.map(function (x) {
          var failed = isNum(x.minimum) && isNum(x.score) && x.score < x.minimum;
          return { cls: failed ? "failed" : "passed",
            cells: [show(x.name), show(x.score) + " / 5", show(x.minimum), show(x.reasoning)] };
        }), "rubric");
    }
    if (d.criteria && typeof d.criteria === "object") {
      table(box, "criteria", ["criterion", "score", "reason"],
        Object.keys(d.criteria).map(function (k) {
          var c = d.criteria[k] || {};
          return { cells: [k, show(c.score), show(c.reason || c.reasoning || "")] };
        }), "criteria");
    }
    if (d.components && typeof d.components === "object") {
      table(box, "components", ["metric", "score", "status", "weight"],
        Object.keys(d.components).map(function (k) {
          var c = d.components[k] || {};
          return { cells: [k, show(c.score), show(c.status), show(c.weight)] };
        }), "components");
    }
    if (Array.isArray(d.questions)) {
      table(box, "questions the answer would answer", ["question", "similarity"],
        d.questions.map(function (q) {
          return typeof q === "object" && q !== null
            ? { cells: [show(q.question), show(q.similarity)] } : { cells: [show(q), ""] };
        }), "questions");
    }
    var kv = el("dl", "kv");
    Object.keys(d).forEach(function (k) {
      if (DONE.indexOf(k) < 0) { pair(kv, k, show(d[k])); }
    });
    if (kv.childNodes.length) { box.appendChild(kv); }
    if (Array.isArray(d.notes) && d.notes.length) {
      var notes = el("ul", "notes");
      d.notes.forEach(function (n) { notes.appendChild(el("li", null, show(n))); });
      box.appendChild(notes);
    }
    if (Array.isArray(d.raw_replies) && d.raw_replies.length) {
      var raw = el("details", "raw");
      raw.appendChild(el("summary", null, "raw judge replies"));
      d.raw_replies.forEach(function (t) { raw.appendChild(el("pre", null, show(t))); });
      box.appendChild(raw);
    }
  }

  ["f-metric", "f-system", "f-status", "f-sort"].forEach(function (id) {
    $(id).addEventListener("change", function () { shown = PAGE; render(); });
  });
  $("f-search").addEventListener("input", function () { shown = PAGE; render(); });
  $("more").addEventListener("click", function () { shown += PAGE; render(); });
  render();
})();
