"use strict";
// The data: JSON, or (a large page) gzip-compressed JSON in base64, which the browser's own
// DecompressionStream inflates.
async function explorerData() {
  const node = document.getElementById("explorer-data");
  if (node.dataset.encoding !== "gzip+base64") return JSON.parse(node.textContent);
  if (typeof DecompressionStream === "undefined") {
    document.body.append(Object.assign(document.createElement("p"), {textContent: "This browser cannot inflate the "
      + "page's compressed data (it has no DecompressionStream): open it in a recent browser, or write the page "
      + "with compress=False."}));
    throw new Error("no DecompressionStream");
  }
  const binary = atob(node.textContent);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

explorerData().then((data) => {
  const PAGE = 50;
  // The detail's lists: the rows each shows at first (the missed documents: a glance), and how many a click adds.
  const DETAIL_ROWS = 100, MISSED_ROWS = 10, MORE_ROWS = 100;
  const S = data.strings;
  const text = (i) => (i < 0 ? "" : S[i]);
  const n = data.columns[0].values.length;
  const withB = data.runs.length > 1;
  const columns = data.columns.map((c) => ({...c, values: c.kind === "text" ? c.values.map(text) : c.values}));
  const byKey = Object.fromEntries(columns.map((c) => [c.key, c]));
  const ids = byKey.query_id.values;
  const haystack = ids.map((id, q) => (id + "\u0000" + (byKey.text ? byKey.text.values[q] : "")).toLowerCase());
  const first = data.metrics[0];
  const key0 = withB ? first + "_delta" : first;
  const sign = data.higher ? 1 : -1;  // +1 where a higher value of the first metric is better

  const el = (tag, attributes, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === "text") node.textContent = value; else node.setAttribute(name, value);
    }
    for (const child of children) node.append(child);
    return node;
  };
  // A metric value ("float") always with 4 decimals; a count as it is; a score or label with up to 4
  // decimals, trailing zeros dropped (4 significant digits below 0.001, where 4 decimals would show 0).
  const fmt = (value, kind) => {
    if (value === null || value === undefined) return "";
    if (!isFinite(value)) return value > 0 ? "inf" : "-inf";
    if (kind === "float") return value.toFixed(4);
    if (kind === "int" || Number.isInteger(value)) return String(value);
    return String(Number(Math.abs(value) < 0.001 ? value.toPrecision(4) : value.toFixed(4)));
  };

  // ---- summary
  const summary = el("section", {id: "summary"});
  const means = el("table", {id: "means"});
  const head = ["metric", "mean " + data.runs[0]];
  if (withB) head.push("mean " + data.runs[1], "mean \u0394 (B \u2212 A)");
  means.append(el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {text: h})))));
  const meansBody = el("tbody");
  for (const m of data.summary.means) {
    const row = el("tr", {}, el("td", {text: m.metric}), el("td", {class: "num", text: fmt(m.a, "float")}));
    if (withB) row.append(el("td", {class: "num", text: fmt(m.b, "float")}), el("td", {class: "num", text: fmt(m.delta, "float")}));
    meansBody.append(row);
  }
  means.append(meansBody);
  const facts = el("div", {}, el("h2", {text: "Summary"}), el("div", {class: "scroll"}, means));
  if (data.summary.note) facts.append(el("p", {id: "shared-queries", class: "hint", text: data.summary.note}));
  facts.append(el("p", {class: "hint", text: "A = " + data.runs[0] + (withB ? ", B = " + data.runs[1] : "")
    + "; " + n + " queries, top " + data.top + " documents each."}));
  if (withB) {
    const o = data.summary.outcomes;
    facts.append(el("p", {id: "outcomes", text: "B against A on " + first + ": " + o.win + " wins, "
      + o.tie + " ties, " + o.loss + " losses"}));
  }
  summary.append(facts);

  const plot = el("div", {}, el("h2", {text: withB ? "\u0394 " + first + " per query" : first + " per query"}));
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  const W = 320, H = 140, BINS = 21;
  svg.setAttribute("width", W); svg.setAttribute("height", H + 16); svg.setAttribute("id", "distribution");
  const finite = byKey[key0].values.filter((v) => v !== null && isFinite(v));
  if (finite.length) {
    let lo = finite[0], hi = lo;
    for (const v of finite) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (withB) { const r = Math.max(Math.abs(lo), Math.abs(hi)) || 1; lo = -r; hi = r; }
    if (hi === lo) hi = lo + 1;
    const counts = new Array(BINS).fill(0);
    for (const v of finite) counts[Math.min(BINS - 1, Math.floor((v - lo) / (hi - lo) * BINS))] += 1;
    const top = Math.max(...counts);
    counts.forEach((c, i) => {
      const bar = document.createElementNS(svgNS, "rect");
      const middle = lo + (i + 0.5) * (hi - lo) / BINS;
      const h = c / top * H;
      bar.setAttribute("x", i * W / BINS + 1); bar.setAttribute("width", W / BINS - 2);
      bar.setAttribute("y", H - h); bar.setAttribute("height", h);
      const better = sign * middle;
      bar.setAttribute("fill", !withB ? "#5b8def" : Math.abs(middle) < (hi - lo) / BINS / 2 ? "#999" : better > 0 ? "#2e8b3d" : "#c0392b");
      const tip = document.createElementNS(svgNS, "title");
      tip.textContent = c + " queries near " + middle.toFixed(3);
      bar.append(tip); svg.append(bar);
    });
    for (const [x, label, anchor] of [[0, lo.toFixed(2), "start"], [W, hi.toFixed(2), "end"]]) {
      const t = document.createElementNS(svgNS, "text");
      t.setAttribute("x", x); t.setAttribute("y", H + 13); t.setAttribute("font-size", "11"); t.setAttribute("text-anchor", anchor);
      t.textContent = label; svg.append(t);
    }
  }
  plot.append(svg);
  summary.append(plot);

  const worst = el("div", {class: "worst"}, el("h2", {text: withB ? "Worst queries for B" : "Worst queries"}));
  const ranked0 = [];
  // With B, only the queries where B is worse; without, the lowest (or highest) values.
  for (let q = 0; q < n; q++) {
    const v = byKey[key0].values[q];
    if (v !== null && (!withB || sign * v < 0)) ranked0.push(q);
  }
  ranked0.sort((a, b) => sign * (byKey[key0].values[a] - byKey[key0].values[b]));  // the worst first
  const worstList = el("div", {id: "worst"});
  for (const q of ranked0.slice(0, 8)) {
    const button = el("button", {type: "button", "data-q": q, text: ids[q] + " (" + fmt(byKey[key0].values[q], "float") + ")"});
    button.addEventListener("click", () => { select(q); openDetail(q); });
    worstList.append(button);
  }
  if (!ranked0.length) worstList.append(el("span", {class: "hint", text: withB ? "none: B is never worse" : "none"}));
  worst.append(worstList);
  summary.append(worst);
  document.body.append(summary);

  // ---- filters
  const filters = el("section", {id: "filters"});
  const search = el("input", {type: "search", id: "filter", placeholder: "query id or text (press /)"});
  const metricSelect = el("select", {id: "range-column"});
  for (const c of columns) if (c.kind !== "text") metricSelect.append(el("option", {value: c.key, text: c.label}));
  const low = el("input", {type: "number", id: "range-min", step: "any", placeholder: "min"});
  const high = el("input", {type: "number", id: "range-max", step: "any", placeholder: "max"});
  const holes = el("input", {type: "checkbox", id: "has-holes"});
  filters.append(el("h2", {text: "Queries"}), search, metricSelect, low, high,
                 el("label", {}, holes, " has holes"));
  let outcome = null;
  if (withB) {
    outcome = el("select", {id: "outcome"});
    for (const [value, label] of [["", "B: any"], ["win", "B better"], ["tie", "tie"], ["loss", "B worse"]])
      outcome.append(el("option", {value: value, text: label}));
    filters.append(outcome);
  }
  document.body.append(filters);

  // ---- the query table
  const table = el("table", {id: "queries"});
  const headRow = el("tr");
  for (const c of columns) {
    const th = el("th", {"data-key": c.key, text: c.label, title: "sort by " + c.label});
    th.addEventListener("click", () => sortBy(c.key));
    headRow.append(th);
  }
  table.append(el("thead", {}, headRow));
  const body = el("tbody");
  table.append(body);
  const pager = el("div", {id: "pager"});
  const previous = el("button", {type: "button", id: "previous", text: "\u2190 previous"});
  const next = el("button", {type: "button", id: "next", text: "next \u2192"});
  const count = el("span", {id: "count"});
  pager.append(previous, " ", next, " ", count,
               el("span", {class: "hint", text: "  keys: j/k or \u2193/\u2191 move, Enter opens, / filters"}));
  document.body.append(el("div", {class: "scroll"}, table), pager);
  const detail = el("section", {id: "detail"});
  document.body.append(detail);

  let order = [];
  let page = 0;
  let selected = -1;  // a query index, or -1
  let sortKey = null, sortDir = 1;
  const holesB = byKey.holes_b;

  function refresh() {
    const needle = search.value.trim().toLowerCase();
    const range = byKey[metricSelect.value];
    const lo = low.value === "" ? -Infinity : Number(low.value);
    const hi = high.value === "" ? Infinity : Number(high.value);
    const bounded = low.value !== "" || high.value !== "";
    const wanted = outcome ? outcome.value : "";
    const onlyHoles = holes.checked;
    const kept = [];
    for (let q = 0; q < n; q++) {
      if (needle && !haystack[q].includes(needle)) continue;
      if (bounded) { const v = range.values[q]; if (v === null || v < lo || v > hi) continue; }
      if (wanted && byKey.outcome.values[q] !== wanted) continue;
      if (onlyHoles && !(byKey.holes.values[q] > 0 || (holesB && holesB.values[q] > 0))) continue;
      kept.push(q);
    }
    if (sortKey !== null) {
      const values = byKey[sortKey].values;
      kept.sort((a, b) => {  // empty last in both directions; ties keep the queries' order (a stable sort)
        const x = values[a], y = values[b];
        const xe = x === null || x === "", ye = y === null || y === "";
        if (xe || ye) return xe === ye ? 0 : xe ? 1 : -1;
        return x < y ? -sortDir : x > y ? sortDir : 0;
      });
    }
    order = kept;
    const at = order.indexOf(selected);
    page = at >= 0 ? Math.floor(at / PAGE) : 0;
    draw();
  }

  function sortBy(key) {
    sortDir = sortKey === key ? -sortDir : 1;
    sortKey = key;
    for (const th of headRow.children) {
      if (th.dataset.key === key) th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    }
    refresh();
  }

  function draw() {
    const pages = Math.max(1, Math.ceil(order.length / PAGE));
    page = Math.min(Math.max(page, 0), pages - 1);
    const rows = [];
    for (const q of order.slice(page * PAGE, (page + 1) * PAGE)) {
      const tr = el("tr", {"data-q": q});
      if (q === selected) tr.className = "selected";
      for (const c of columns) {
        const value = c.values[q];
        if (c.kind === "text") tr.append(el("td", {class: "text", title: value, text: value}));
        else tr.append(el("td", {class: "num", text: fmt(value, c.kind)}));
      }
      rows.push(tr);
    }
    body.replaceChildren(...rows);
    const from = order.length ? page * PAGE + 1 : 0;
    count.textContent = "rows " + from + "\u2013" + Math.min(order.length, (page + 1) * PAGE) + " of " + order.length
      + (order.length < n ? " (filtered from " + n + ")" : "") + ", page " + (page + 1) + " of " + pages;
    previous.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  function select(q) {
    selected = q;
    const at = order.indexOf(q);
    if (at >= 0) page = Math.floor(at / PAGE);
    draw();
    const row = body.querySelector('tr[data-q="' + q + '"]');
    if (row) row.scrollIntoView({block: "nearest"});
  }

  function move(step) {
    if (!order.length) return;
    const at = order.indexOf(selected);
    select(order[at < 0 ? 0 : Math.min(order.length - 1, Math.max(0, at + step))]);
  }

  // The rows of query q (and run r) of a part: one group of part.start per query and run, as [first row, count].
  const groupOf = (part, q, r = 0) => {
    const g = q * part.groups + r;
    return [part.start[g], part.start[g + 1] - part.start[g]];
  };
  const rankOf = (part, q, r, i) => (part.rank ? part.rank[i] : i - part.start[q * part.groups + r] + 1);
  const grouped = (count) => count.toLocaleString("en-US");

  // A label's cell; a label a judge gave (part.judged, present when the qrels name their sources) is marked "*".
  const labelCell = (part, i, shown) => (part.judged && part.judged[i]
    ? el("td", {class: "label num judged", text: shown + "*", title: "given by a judge, not by people"})
    : el("td", {class: "label num", text: shown}));

  // A list of `total` rows (row(k) gives the k-th as [cells, class]) that holds its first `first` rows and a
  // button adding MORE_ROWS at a time: a top of a million documents is a few hundred rows in the DOM until asked for.
  function listTable(caption, headers, total, row, first) {
    const t = el("table", {});
    t.append(el("caption", {text: caption}), el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {text: h})))));
    const tb = el("tbody");
    t.append(tb);
    const list = el("div", {class: "list"}, t);
    const more = el("button", {type: "button", class: "more"});
    let shown = 0;
    const grow = (upTo) => {
      const rows = [];
      for (; shown < Math.min(total, upTo); shown++) {
        const [cells, cls] = row(shown);
        rows.push(el("tr", cls ? {class: cls} : {}, ...cells));
      }
      tb.append(...rows);
      const left = total - shown;
      more.textContent = "\u2026 " + grouped(left) + " more: show " + grouped(Math.min(left, MORE_ROWS));
      if (!left) more.remove();
    };
    more.addEventListener("click", () => grow(shown + MORE_ROWS));
    grow(first);
    if (shown < total) list.append(more);
    return list;
  }

  function openDetail(q) {
    const parts = [el("h2", {text: "Query " + ids[q]})];
    if (byKey.text && byKey.text.values[q]) parts.push(el("p", {class: "query-text", text: byKey.text.values[q]}));
    const values = columns.filter((c) => c.kind !== "text").map((c) => c.label + " " + fmt(c.values[q], c.kind));
    parts.push(el("p", {class: "hint", text: values.join(" \u00b7 ")}));
    const R = data.ranked, M = data.missed, C = data.changes;
    // What changed first (with B), then the ranked lists, then the relevant documents not retrieved.
    if (withB) {
      const words = ["entered", "left", "moved"];
      const [from, total] = groupOf(C, q);
      const list = listTable("changes in the top " + data.top + " from A to B (" + grouped(total) + ")",
        ["doc", "change", "rank A", "rank B"], total, (k) => {
          const i = from + k;
          return [[el("td", {class: "doc", text: text(C.doc[i])}), el("td", {class: "change", text: words[C.change[i]]}),
                   el("td", {class: "num", text: fmt(C.rank_a[i])}), el("td", {class: "num", text: fmt(C.rank_b[i])})], ""];
        }, DETAIL_ROWS);
      list.classList.add("changes");
      parts.push(list);
    }
    const lists = el("div", {class: "lists"});
    data.runs.forEach((name, run) => {
      const [from, total] = groupOf(R, q, run);
      const list = listTable("ranked by " + name + " (top " + data.top + ")",
        ["rank", "doc"].concat(R.title ? ["title"] : [], ["label", "score"]), total, (k) => {
          const i = from + k;
          const hole = R.label[i] === null;
          const cells = [el("td", {class: "num", text: String(rankOf(R, q, run, i))}), el("td", {class: "doc", text: text(R.doc[i])})];
          if (R.title) cells.push(el("td", {class: "title", text: text(R.title[i])}));
          cells.push(labelCell(R, i, hole ? "hole" : fmt(R.label[i])), el("td", {class: "num", text: fmt(R.score[i])}));
          return [cells, hole ? "hole" : R.label[i] > 0 ? "relevant" : ""];
        }, DETAIL_ROWS);
      list.setAttribute("data-run", run === 0 ? "a" : "b"); list.classList.add("ranked");
      lists.append(list);
    });
    parts.push(lists);
    const missedLists = el("div", {class: "lists"});
    data.runs.forEach((name, run) => {
      const [from, total] = groupOf(M, q, run);
      const list = listTable("relevant, not retrieved by " + name + " (" + grouped(total) + ")",
        ["doc"].concat(M.title ? ["title"] : [], ["label"]), total, (k) => {
          const i = from + k;
          return [[el("td", {class: "doc", text: text(M.doc[i])})].concat(
            M.title ? [el("td", {class: "title", text: text(M.title[i])})] : [], [labelCell(M, i, fmt(M.label[i]))]), ""];
        }, MISSED_ROWS);
      list.setAttribute("data-run", run === 0 ? "a" : "b"); list.classList.add("missed");
      missedLists.append(list);
    });
    parts.push(missedLists);
    detail.replaceChildren(...parts);
    detail.setAttribute("data-q", q);
    if (detail.getBoundingClientRect().top > window.innerHeight) detail.scrollIntoView({block: "start"});
  }

  body.addEventListener("click", (event) => {
    const tr = event.target.closest("tr[data-q]");
    if (!tr) return;
    const q = Number(tr.dataset.q);
    select(q);
    openDetail(q);
  });
  previous.addEventListener("click", () => { page -= 1; draw(); });
  next.addEventListener("click", () => { page += 1; draw(); });
  for (const input of [search, low, high]) input.addEventListener("input", refresh);
  for (const input of [metricSelect, holes].concat(outcome ? [outcome] : [])) input.addEventListener("change", refresh);
  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
    if (typing) { if (event.key === "Escape") event.target.blur(); return; }
    // The browser's shortcuts stay its own, and Enter on a focused button presses that button.
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Enter" && event.target instanceof HTMLButtonElement) return;
    if (event.key === "/") { event.preventDefault(); search.focus(); }
    else if (event.key === "j" || event.key === "ArrowDown") { event.preventDefault(); move(1); }
    else if (event.key === "k" || event.key === "ArrowUp") { event.preventDefault(); move(-1); }
    else if (event.key === "Enter" && selected >= 0) { event.preventDefault(); openDetail(selected); }
  });

  refresh();
  window.explorerReady = performance.now();
});
