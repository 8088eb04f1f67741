// The drill-down of report.html. User text is only ever inserted with textContent.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("veracity-data").textContent);
  var samples = data.samples;
  var metrics = data.metrics;
  var PAGE = 200;
  var shown = PAGE;
  var VERDICTS = { supported: "supported", contradicted: "contradicted", not_enough_info: "not enough info",
    supported_by_conversation: "by the conversation", misattributed: "misattributed",
    uncited: "uncited", unsupported: "unsupported" };
  var UNSUPPORTED = { contradicted: "contradicted by the contexts",
    not_enough_info: "not supported by the contexts (not enough info)",
    misattributed: "supported, but by a passage it does not cite",
    uncited: "supported, but its sentence cites no passage",
    unsupported: "supported, but its support is in no passage" };
  var WORST = { contradicted: 3, not_enough_info: 2, unsupported: 2, misattributed: 1, uncited: 1 };
  // Statuses that fail a result whatever its score: the judge or the input broke.
  var ERRORS = { judge_error: true, invalid_input: true };
  var MARKS = { pass: "✓", fail: "✗", error: "⚠" };
  var ANSWER_CLIP = 180;  // characters of an answer shown before "more"

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
  function label(status) { return data.status_labels[status] || String(status).replace(/_/g, " "); }
  function threshold(metric) {
    var t = data.thresholds[metric];
    return isNum(t) ? t : 0.5;
  }
  // pass / fail against the metric's threshold, error for a broken judge or input, null
  // when there is no decision (nothing scored, for a reason that is no failure).
  function verdictOf(score, errors, metric) {
    if (errors) { return "error"; }
    if (!isNum(score)) { return null; }
    return score >= threshold(metric) ? "pass" : "fail";
  }
  function unique(xs) { return xs.filter(function (x, i) { return xs.indexOf(x) === i; }); }

  // What a score reads as: its pass mark, its status in words where it is not plainly
  // "scored" ("no claims · 1.000", "no contexts", "judge error"), the number otherwise.
  function scoreView(score, statuses, verdict) {
    var others = unique(statuses).filter(function (st) { return st !== "scored"; });
    var words = others.map(label).join(", ");
    var text;
    if (!isNum(score)) { text = words || "—"; }
    else if (others.length === 1 && others[0] === "no_contexts" && statuses.length === 1) { text = words; }
    else { text = (words ? words + " · " : "") + fmt(score); }
    return { mark: verdict ? MARKS[verdict] : "", text: text, verdict: verdict };
  }
  function showScore(node, view) {
    if (view.mark) { node.appendChild(el("span", "mark", view.mark)); node.appendChild(document.createTextNode(" ")); }
    node.appendChild(el("span", "score-text", view.text));
    if (view.verdict) { node.className += " verdict-" + view.verdict; }
  }

  var statuses = [];
  var systems = [];
  samples.forEach(function (s, i) {
    s.index = i;
    s.byMetric = {};
    s.results.forEach(function (r) {
      var m = s.byMetric[r.metric] || (s.byMetric[r.metric] = { scores: [], statuses: [], errors: [] });
      if (isNum(r.score)) { m.scores.push(r.score); }
      m.statuses.push(r.status);
      if (ERRORS[r.status]) { m.errors.push(label(r.status) + ": " + r.reason); }
      if (statuses.indexOf(r.status) < 0) { statuses.push(r.status); }
    });
    var means = [];
    s.failing = false;
    Object.keys(s.byMetric).forEach(function (k) {
      var m = s.byMetric[k];
      m.mean = mean(m.scores);
      if (m.mean !== null) { means.push(m.mean); }
      m.verdict = verdictOf(m.mean, m.errors.length, k);
      s.failing = s.failing || m.verdict === "fail" || m.verdict === "error";
    });
    s.meanAll = mean(means);
    s.unsupported = unsupportedClaims(s);
    if (systems.indexOf(systemOf(s)) < 0) { systems.push(systemOf(s)); }
    s.haystack = [s.id, systemOf(s), s.question_type || "", s.question || "", s.answer || ""]
      .join("\n").toLowerCase();
  });

  function fill(select, first, values, names) {
    select.appendChild(el("option", null, first)).value = "";
    values.forEach(function (v) { select.appendChild(el("option", null, names ? names(v) : v)).value = v; });
  }
  fill($("f-metric"), "all metrics", metrics);
  fill($("f-system"), "all systems", systems);
  fill($("f-status"), "any status", statuses, label);

  // Failures first: when anything fails the page opens on the failing samples alone.
  var failingCount = samples.filter(function (s) { return s.failing; }).length;
  $("f-failing").checked = failingCount > 0;
  $("f-failing").disabled = failingCount === 0;
  $("f-failing-label").textContent = failingCount
    ? "failing only (" + failingCount + " of " + samples.length + " samples)"
    : "failing only (nothing fails)";

  var head = $("sample-head");
  ["sample", "system", "type", "question · answer"].concat(metrics).forEach(function (name, i) {
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
    if ($("f-failing").checked && !s.failing) { return false; }
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
    td.setAttribute("data-metric", metric);
    if (!m) { return td; }
    td.className += m.mean !== null ? " band-" + band(m.mean) : " unscored";
    showScore(td, scoreView(m.mean, m.statuses, m.verdict));
    var tip = [metric + ": " + unique(m.statuses).map(label).join(", ")];
    if (m.mean !== null) { tip.push("mean " + fmt(m.mean) + ", threshold " + threshold(metric)); }
    td.title = tip.concat(m.errors).join("\n");
    return td;
  }

  // How a listed claim stands, as report/excerpts.py claim_outcome says: its verdict, but
  // a citation metric's supported claim fails on its attribution (misattributed — called
  // uncited where its sentence cites nothing, as details.uncited names it — or its support
  // in no passage); a statement judged without a call says only if attributed.
  function outcome(c) {
    if (!c.verdict) { return c.attributed ? "supported" : "not_enough_info"; }
    if (c.verdict === "supported" && c.attribution && c.attribution !== "cited") {
      if (c.attribution === "misattributed" && Array.isArray(c.cites) && !c.cites.length) {
        return "uncited";
      }
      return String(c.attribution);
    }
    return String(c.verdict);
  }

  // The passages a claim cites that do not exist ("[7]" of three), as the citation
  // metrics name them beside the claim.
  function noSuchPassage(c) {
    return Array.isArray(c.no_such_passage) ? c.no_such_passage : [];
  }

  // The unsupported and misattributed claims of a sample (every metric and iteration),
  // each once, as its worst (WORST).
  function unsupportedClaims(s) {
    var found = {};
    var list = [];
    s.results.forEach(function (r) {
      var claims = r.details && r.details.claims;
      if (!Array.isArray(claims)) { return; }
      claims.forEach(function (c) {
        if (!c || typeof c.claim !== "string") { return; }
        var kind = outcome(c);
        if (!UNSUPPORTED[kind]) { return; }
        var seen = found[c.claim];
        if (!seen) {
          list.push(found[c.claim] = { text: c.claim, verdict: kind, reason: c.reason || "",
            missing: noSuchPassage(c) });
        } else if (WORST[kind] > WORST[seen.verdict]) { seen.verdict = kind; seen.reason = c.reason || seen.reason; }
      });
    });
    return list;
  }

  // "2 unsupported claims, 1 misattributed, 1 uncited"
  function unsupportedCount(list) {
    function count(kind) { return list.filter(function (c) { return c.verdict === kind; }).length; }
    var wrong = list.length - count("misattributed") - count("uncited");
    var parts = [];
    if (wrong) { parts.push(wrong + (wrong === 1 ? " unsupported claim" : " unsupported claims")); }
    ["misattributed", "uncited"].forEach(function (kind) {
      if (count(kind)) { parts.push(count(kind) + " " + kind); }
    });
    return parts.join(", ");
  }

  // "cites [7], which does not exist", beside a claim; null when it cites none such.
  function missingNote(missing) {
    if (!missing.length) { return null; }
    var one = missing.length === 1;
    return el("span", "no-passage", "cites " + passages(missing) + (one ? ", which does" : ", which do") +
      " not exist");
  }

  // What a listed claim's hover says: how it fails, the judge's reason, a citation of no passage.
  function claimTip(c) {
    var tip = UNSUPPORTED[c.verdict] + (c.reason ? ": " + c.reason : "");
    return c.missing.length ? tip + " (cites " + passages(c.missing) + ", no such passage)" : tip;
  }

  // Where a claim stands in the answer: [start, end) or null. Exact text first (case
  // aside), then without its final full stop.
  function locate(answer, claim) {
    var hay = answer.toLowerCase();
    var needle = claim.trim().toLowerCase();
    var at = needle ? hay.indexOf(needle) : -1;
    if (at < 0 && /[.!]$/.test(needle) && needle.length > 1) {
      needle = needle.slice(0, -1);
      at = hay.indexOf(needle);
    }
    return at < 0 ? null : [at, at + needle.length];
  }

  // The answer with its unsupported claims marked where their text is found; the others
  // listed below it.
  function answerBlock(s) {
    var box = el("div", "answer-box");
    var answer = typeof s.answer === "string" ? s.answer : "";
    if (!answer && !s.unsupported.length) { return box; }
    var text = el("div", "answer-text");
    var spans = [];
    var unplaced = [];
    s.unsupported.forEach(function (c) {
      var at = locate(answer, c.text);
      var overlaps = at && spans.some(function (x) { return at[0] < x.at[1] && x.at[0] < at[1]; });
      if (at && !overlaps) { spans.push({ at: at, claim: c }); } else if (!at) { unplaced.push(c); }
    });
    spans.sort(function (a, b) { return a.at[0] - b.at[0]; });
    var pos = 0;
    spans.forEach(function (x) {
      text.appendChild(document.createTextNode(answer.slice(pos, x.at[0])));
      var mark = el("mark", "claim-" + token(x.claim.verdict), answer.slice(x.at[0], x.at[1]));
      mark.title = claimTip(x.claim);
      text.appendChild(mark);
      pos = x.at[1];
    });
    text.appendChild(document.createTextNode(answer.slice(pos)));
    box.appendChild(text);
    if (answer.length > ANSWER_CLIP) {
      text.className += " clipped";
      var more = el("button", "more-text", "more");
      more.type = "button";
      more.addEventListener("click", function (ev) {
        ev.stopPropagation();  // expanding the answer does not open the drill-down
        var open = text.classList.toggle("clipped");
        more.textContent = open ? "more" : "less";
      });
      box.appendChild(more);
    }
    if (s.unsupported.length) {
      box.appendChild(el("p", "unsupported-count", unsupportedCount(s.unsupported) +
        (spans.length ? ": " + spans.length + " marked in the answer" : "")));
    }
    if (unplaced.length) {
      var ul = el("ul", "unplaced");
      unplaced.forEach(function (c) {
        var li = el("li", "claim-" + token(c.verdict));
        li.appendChild(el("span", "verdict-label", VERDICTS[c.verdict]));
        li.appendChild(el("span", "item-text", c.text));
        var note = missingNote(c.missing);
        if (note) { li.appendChild(note); }
        li.title = claimTip(c);
        ul.appendChild(li);
      });
      box.appendChild(ul);
    }
    return box;
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
      var qa = el("td", "qa");
      qa.appendChild(el("div", "question", q.length > 140 ? q.slice(0, 139) + "…" : q));
      qa.appendChild(answerBlock(s));
      tr.appendChild(qa);
      metrics.forEach(function (m) { tr.appendChild(scoreCell(s, m)); });
      tr.addEventListener("click", function () { toggle(tr, s); });
      tr.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(tr, s); }
      });
      body.appendChild(tr);
    });
    var count = "Showing " + Math.min(shown, list.length) + " of " + list.length + " matching sample(s)";
    if ($("f-failing").checked) { count += ", failing only (untick it to see the rest)"; }
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
    var scroller = $("sample-scroll");
    if (scroller.scrollWidth > scroller.clientWidth) {
      box.style.maxWidth = Math.max(scroller.clientWidth - 30, 320) + "px";
    }
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

  // Citation markers as veracity reads them ([1], [1, 3], [^1], 【1】, (Source 2)).
  var CITATION = /\[\^?\s*(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\s*\]|【\s*(\d{1,4}(?:\s*[,;、]\s*\d{1,4})*)\s*】|\(\s*(?:sources?|refs?|references?|docs?|documents?|passages?|contexts?)\s*#?\s*(\d{1,4}(?:\s*(?:,|and|&)\s*\d{1,4})*)\s*\)/gi;

  // The answer with each citation marker a link to the passage it names (numbered from
  // ``base``, as the citation metrics read them); a passage that does not exist is not
  // linked.
  function citedAnswer(answer, items, base) {
    var dd = el("dd");
    var pos = 0;
    answer.replace(CITATION, function (marker, a, b, c, at) {
      dd.appendChild(document.createTextNode(answer.slice(pos, at)));
      var span = el("span", "citation");
      (a || b || c).match(/\d+/g).forEach(function (n, i) {
        var target = items[Number(n) - base];
        var link = el(target ? "a" : "span", target ? "cite" : "cite missing", n);
        if (target) {
          link.href = "#";
          link.title = "passage " + n + ": " + target.textContent.slice(0, 120);
          link.addEventListener("click", function (ev) {
            ev.preventDefault();
            target.parentNode.parentNode.open = true;
            target.classList.add("cited");
            target.scrollIntoView({ block: "nearest" });
          });
        } else {
          link.title = "no passage " + n + " was retrieved";
        }
        if (i) { span.appendChild(document.createTextNode(", ")); }
        span.appendChild(link);
      });
      span.insertBefore(document.createTextNode("["), span.firstChild);
      span.appendChild(document.createTextNode("]"));
      dd.appendChild(span);
      pos = at + marker.length;
      return marker;
    });
    dd.appendChild(document.createTextNode(answer.slice(pos)));
    return dd;
  }

  function detail(s) {
    var box = el("div", "sample-detail");
    var texts = el("dl", "sample-texts");
    pair(texts, "sample", s.id);
    pair(texts, "system", systemOf(s));
    pair(texts, "question type", s.question_type);
    turns(texts, s.history);
    pair(texts, "question", s.question, "long");
    var items = [];
    var ol = el("ol", "contexts");
    ol.start = 0;
    (s.contexts || []).forEach(function (c) { items.push(ol.appendChild(el("li", null, c))); });
    var cited = s.results.filter(function (r) { return r.details && isNum(r.details.index_base); });
    if (typeof s.answer === "string" && items.length && CITATION.test(s.answer)) {
      CITATION.lastIndex = 0;
      var div = el("div", "long answer");
      div.appendChild(el("dt", null, "answer"));
      var base = cited.length ? cited[0].details.index_base : 1;
      div.appendChild(citedAnswer(s.answer, items, base));
      texts.appendChild(div);
      ol.start = base;  // the passages numbered as the answer cites them
    } else {
      CITATION.lastIndex = 0;
      pair(texts, "answer", s.answer, "long answer");
    }
    pair(texts, "reference", s.reference, "long");
    box.appendChild(texts);
    if (items.length) {
      var ctx = el("details", "contexts");
      ctx.appendChild(el("summary", null, "retrieved contexts (" + items.length + ")"));
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
    var score = el("span", "score band-" + band(r.score));
    showScore(score, scoreView(r.score, [r.status], verdictOf(r.score, ERRORS[r.status], r.metric)));
    h.appendChild(score);
    if (isNum(r.calibrated)) {
      h.appendChild(el("span", "calibrated", "calibrated P " + fmt(r.calibrated)));
    }
    h.appendChild(el("span", "status-badge", label(r.status)));
    box.appendChild(h);
    box.appendChild(el("p", "reason", r.reason));
    details(box, r.details || {}, s);
    return box;
  }

  function passages(xs) { return "[" + xs.join("], [") + "]"; }

  // A citation metric's claim: where its support is against what it cites.
  function attribution(item) {
    var cites = Array.isArray(item.cites) ? item.cites : [];
    var support = Array.isArray(item.supported_by) ? item.supported_by : [];
    var cited = cites.length ? "cites " + passages(cites) : "cites nothing";
    if (item.attribution === "cited") { return cited + ", which supports it"; }
    if (item.attribution === "misattributed") {
      return cited + (cites.length ? ", but" : ";") + " its support is in " + passages(support);
    }
    return cited + "; no passage supports it";
  }

  // The cheap local signals of one claim, in words: only what is worth a look.
  function signalText(sig) {
    var parts = [];
    if (isNum(sig.overlap)) { parts.push("word overlap " + Math.round(sig.overlap * 100) + " %"); }
    if (Array.isArray(sig.missing_names) && sig.missing_names.length) {
      parts.push("in no context: " + sig.missing_names.join(", "));
    }
    if (Array.isArray(sig.missing_numbers) && sig.missing_numbers.length) {
      parts.push("numbers in no context: " + sig.missing_numbers.join(", "));
    }
    if (sig.negation_flip === true) { parts.push("negated unlike its closest context sentence"); }
    if (sig.verbatim === true) { parts.push("word for word in a context"); }
    return "local signals: " + parts.join(" · ");
  }

  function verdictList(box, title, items, textKey, cls, signals) {
    if (!Array.isArray(items) || !items.length) { return; }
    box.appendChild(el("h5", null, title));
    var ul = el("ul", cls);
    items.forEach(function (item, i) {
      var verdict = token(outcome(item));
      var li = el("li", "verdict verdict-" + verdict);
      var line = el("div", "verdict-line");
      line.appendChild(el("span", "verdict-label", VERDICTS[verdict] || verdict));
      line.appendChild(el("span", "item-text", item[textKey]));
      var missing = missingNote(noSuchPassage(item));
      if (missing) { line.appendChild(missing); }
      if (isNum(item.p_supported)) {
        line.appendChild(el("span", "p-supported", "P(supported) " + item.p_supported.toFixed(2)));
      }
      // Supported other than on the judge's first word: say so at a glance (the reason
      // below says how).
      if (typeof item.overruled === "string") {
        var said = VERDICTS[item.overruled] || item.overruled;
        line.appendChild(el("span", "provenance", "over the judge's " + said));
      } else if (typeof item.first_look === "string") {
        line.appendChild(el("span", "provenance", "second look"));
      }
      li.appendChild(line);
      if (item.reason) { li.appendChild(el("p", "item-reason", item.reason)); }
      if (item.evidence) { li.appendChild(el("blockquote", "evidence", item.evidence)); }
      if (item.evidence_not_found) {
        li.appendChild(el("p", "evidence-not-found", "the judge's evidence is not in the contexts"));
      }
      if (typeof item.attribution === "string") {
        li.appendChild(el("p", "attribution", attribution(item)));
      }
      var sig = signals && signals[i];
      if (sig && typeof sig === "object") { li.appendChild(el("p", "signals", signalText(sig))); }
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
    if (Array.isArray(value) && value.every(function (x) { return typeof x !== "object"; })) {
      return value.map(show).join("; ");
    }
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
    // Faithfulness's local signals: one line a claim, beside it; the answer's own below.
    var signals = d.local_signals && typeof d.local_signals === "object" ? d.local_signals : null;
    var perClaim = signals && Array.isArray(signals.claims) ? signals.claims : null;
    verdictList(box, "claims", d.claims, "claim", "claims", perClaim);
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
      if (k === "local_signals" && signals) {
        var answerSignals = {};
        Object.keys(signals).forEach(function (n) { if (n !== "claims") { answerSignals[n] = signals[n]; } });
        pair(kv, k, show(answerSignals));
      } else if (DONE.indexOf(k) < 0) { pair(kv, k, show(d[k])); }
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

  ["f-failing", "f-metric", "f-system", "f-status", "f-sort"].forEach(function (id) {
    $(id).addEventListener("change", function () { shown = PAGE; render(); });
  });
  $("f-search").addEventListener("input", function () { shown = PAGE; render(); });
  $("more").addEventListener("click", function () { shown += PAGE; render(); });
  render();
})();
