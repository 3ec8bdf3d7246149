/*
 * The papers table: text search, filters that take several values ("any of"), sortable columns,
 * paging, and export of the current view as BibTeX or CSV.
 *
 * Everything comes from the JSON element #masrl-paper-data that `masrl build` writes into the
 * page: the rows, and the filters with their URL keys, labels, kinds and values. This script knows
 * no taxonomy field or value by name. Record strings reach the page through textContent, never as
 * HTML, so a title cannot inject markup. The view lives in the query string (`?u=orchestrator&u=team`
 * or `?u=orchestrator,team`), so it can be shared; a value the data does not know is reported and
 * ignored. Option counts follow the other filters (facets).
 *
 * What only searching and exporting need (authors, summaries, BibTeX fields) is not in the page:
 * it is the site's own data/papers-details.json (the element's data-details), fetched the first
 * time a reader focuses the search box, opens a view with a search in its address, or exports.
 * Until it arrives the search reads titles, keys and venues; then the view is filtered again.
 * No request leaves the site: exports are built here and handed to the browser as a download.
 */
(function () {
  "use strict";

  var root = document.getElementById("masrl-papers");
  var dataNode = document.getElementById("masrl-paper-data");
  if (!root || !dataNode) return;

  var data = JSON.parse(dataNode.textContent);
  var filters = data.filters;
  // Rows arrive without their empty keys (the page carries them inline); give every row the same
  // keys in the same order, so the engine reads them the fast way, the same for every row. The
  // details' keys (DETAIL_KEYS) are filled in when data/papers-details.json arrives.
  var DETAIL_KEYS = ["au", "ea", "x", "d", "ax", "cu", "w", "mw", "et", "by", "b", "bt", "ba"];
  var KEYS = ["k", "t", "y", "ve", "s", "o", "pa", "cd"].concat(DETAIL_KEYS);
  filters.forEach(function (f) { if (KEYS.indexOf(f.k) === -1) KEYS.push(f.k); });
  // A key a row lacks takes the value given under data.defaults, if any.
  var defaults = data.defaults || {};
  // The rows arrive as columns, one list a key (all of one length), null where a row lacks the key
  // (gzip packs a column of like values tighter); each row is read across them.
  var cols = data.cols;
  var rows = (cols.k || []).map(function (_, n) {
    var row = {};
    for (var i = 0; i < KEYS.length; i++) {
      var col = cols[KEYS[i]];
      row[KEYS[i]] = col && col[n] !== null && col[n] !== undefined ? col[n] : defaults[KEYS[i]];
    }
    row.au = [];
    row._text = "";
    row._i = 0;
    return row;
  });
  var detailsUrl = root.getAttribute("data-details");
  var details = null;  // the promise of the details, once asked for

  // The details of every row (authors, summary, BibTeX fields), fetched once; resolves to true when
  // the rows hold them and their search text is complete, to false (with a notice) if they failed.
  function loadDetails() {
    if (details) return details;
    details = fetch(detailsUrl)
      .then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.json();
      })
      .then(function (more) {
        var extra = more.defaults || {};
        rows.forEach(function (row, r) {
          var raw = more.rows[r] || {};
          for (var i = 0; i < DETAIL_KEYS.length; i++) {
            var key = DETAIL_KEYS[i];
            row[key] = key in raw ? raw[key] : extra[key];
          }
          if (!row.au) row.au = [];
          row._text = searchText(row);
        });
        update();
        return true;
      })
      .catch(function (error) {
        notice.textContent = "The authors and summaries could not be loaded (" + error.message + "), so the " +
          "search reads titles, keys and venues only, and the exports are not available. Reload the page to try again.";
        notice.hidden = false;
        return false;
      });
    return details;
  }
  var perPage = parseInt(root.getAttribute("data-per-page"), 10) || 100;
  var box = root.querySelector(".masrl-filterbox");
  var form = root.querySelector(".masrl-filters");
  var facets = root.querySelector(".masrl-facets");
  var search = form.querySelector('input[name="q"]');
  var active = root.querySelector(".masrl-active");
  var notice = root.querySelector(".masrl-notice");
  var tbody = root.querySelector("tbody");
  var shown = root.querySelector(".masrl-shown");
  var pager = root.querySelector(".masrl-pager");
  var headers = Array.prototype.slice.call(root.querySelectorAll("th[data-sort]"));
  var columns = Array.prototype.slice.call(root.querySelectorAll("thead th")).map(function (th) {
    return th.getAttribute("data-sort") || "links";
  });

  // Per filter: value -> label and value -> position (the vocabulary's order, used for sorting).
  var byKey = {};
  filters.forEach(function (f) {
    f.label_of = {};
    f.rank = {};
    f.values.forEach(function (pair, i) {
      f.label_of[pair[0]] = pair[1];
      f.rank[pair[0]] = i;
    });
    byKey[f.k] = f;
  });

  // A row's url: the data leaves out the arXiv abstract page, which the arXiv id gives.
  function urlOf(row) {
    return row.w || "https://arxiv.org/abs/" + row.ax;
  }

  // The entry's own page on this site, beside the papers page.
  function pageOf(row) {
    return encodeURIComponent(row.k) + "/";
  }

  // The option values a row satisfies under filter f; a row matches when one of them is chosen.
  function valuesOf(row, f) {
    if (f.kind === "flag") return [row[f.k] ? "yes" : "no"];
    if (f.kind === "sub") {
      var out = [];
      var subs = row[f.k] || {};
      for (var o in subs) out.push(o + ":any", o + ":" + subs[o]);
      return out;
    }
    if (f.kind === "list") return (row[f.k] || []).map(String);
    return [String(row[f.k])];
  }

  // Pre-compute, once, each row's lower-case search text and, per filter, the positions (in the
  // filter's value list) of the values it satisfies, so filtering compares small integers. Row r's
  // are at[i].pos[at[i].from[r] ..< at[i].from[r + 1]]: typed arrays, which the collector skips.
  var at = filters.map(function () { return { from: new Int32Array(rows.length + 1), pos: [] }; });
  function searchText(row) {
    return [row.t, row.k, row.au.join(" "), row.ve, row.x || ""].join(" ").toLowerCase();
  }

  rows.forEach(function (row, r) {
    row._i = r;
    row._text = searchText(row);
    filters.forEach(function (f, i) {
      var column = at[i];
      valuesOf(row, f).forEach(function (v) {
        var j = f.rank[v];
        if (j !== undefined) column.pos.push(j);
      });
      column.from[r + 1] = column.pos.length;
    });
  });
  at.forEach(function (column) { column.pos = Uint16Array.from(column.pos); });

  var state = { q: "", sort: "", dir: "asc", page: 1, chosen: filters.map(function () { return {}; }) };
  var view = [];  // the rows shown, in order: what the export buttons write

  function words() {
    return state.q.toLowerCase().split(/\s+/).filter(Boolean);
  }

  // One pass over the rows: the rows that pass everything, and per filter the rows that pass
  // every other filter (what that filter's option counts are taken over).
  function evaluate() {
    var w = words();
    var on = [];
    var flags = filters.map(function (f, i) {
      var set = new Uint8Array(f.values.length);
      var any = false;
      for (var v in state.chosen[i]) {
        if (v in f.rank) { set[f.rank[v]] = 1; any = true; }
      }
      if (any) on.push(i);
      return set;
    });
    var list = [];
    var counts = filters.map(function (f) { return new Int32Array(f.values.length); });
    var totals = new Int32Array(filters.length);
    var nf = filters.length;
    for (var r = 0; r < rows.length; r++) {
      var row = rows[r];
      var ok = true;
      for (var n = 0; n < w.length; n++) {
        if (row._text.indexOf(w[n]) === -1) { ok = false; break; }
      }
      if (!ok) continue;
      var failed = -1;
      var fails = 0;
      for (var k = 0; k < on.length && fails < 2; k++) {
        var col = at[on[k]];
        var set = flags[on[k]];
        var hit = false;
        for (var m = col.from[r], end = col.from[r + 1]; m < end; m++) if (set[col.pos[m]]) { hit = true; break; }
        if (!hit) { failed = on[k]; fails++; }
      }
      if (fails > 1) continue;
      if (fails === 0) list.push(row);
      for (var i = 0; i < nf; i++) {
        if (fails === 1 && i !== failed) continue;
        totals[i]++;
        var column = at[i];
        var c = counts[i];
        for (var j = column.from[r], stop = column.from[r + 1]; j < stop; j++) c[column.pos[j]]++;
      }
    }
    return { list: list, counts: counts, totals: totals };
  }

  function sortKey(row, key) {
    if (key === "t") return row.t.toLowerCase();
    if (key === "ve") return (row.ve || "").toLowerCase();
    if (key === "y") return row.y;
    var f = byKey[key];
    if (f && f.kind === "sub") return Object.keys(row[key] || {}).sort().join(" ");
    if (f && f.kind === "eq") return f.rank[row[key]];
    if (f && f.kind === "list") return (row[key] || []).length ? f.rank[row[key][0]] : -1;
    return row[key];
  }

  function sorted(list) {
    if (!state.sort) return list;
    var key = state.sort;
    var sign = state.dir === "desc" ? -1 : 1;
    return list
      .map(function (row) { return [sortKey(row, key), row]; })
      .sort(function (a, b) {
        if (a[0] < b[0]) return -sign;
        if (a[0] > b[0]) return sign;
        return a[1].k < b[1].k ? -1 : a[1].k > b[1].k ? 1 : 0;
      })
      .map(function (pair) { return pair[1]; });
  }

  // -- the filter controls, built from the data

  function buildFacets() {
    filters.forEach(function (f, i) {
      var details = document.createElement("details");
      details.className = "masrl-facet";
      details.setAttribute("data-k", f.k);
      var summary = document.createElement("summary");
      var name = document.createElement("span");
      name.className = "masrl-facet__name";
      name.textContent = f.label;
      var value = document.createElement("span");
      value.className = "masrl-facet__value";
      summary.appendChild(name);
      summary.appendChild(value);
      details.appendChild(summary);
      var group = document.createElement("fieldset");
      var legend = document.createElement("legend");
      legend.className = "masrl-visually-hidden";
      legend.textContent = f.label + ": any of";
      group.appendChild(legend);
      f.values.forEach(function (pair) {
        var label = document.createElement("label");
        var box = document.createElement("input");
        box.type = "checkbox";
        box.name = f.k;
        box.value = pair[0];
        var text = document.createElement("span");
        text.textContent = pair[1];
        var count = document.createElement("span");
        count.className = "masrl-n";
        label.appendChild(box);
        label.appendChild(text);
        label.appendChild(count);
        group.appendChild(label);
      });
      details.appendChild(group);
      facets.appendChild(details);
      f.node = details;
      f.summaryValue = value;
      f.boxes = Array.prototype.slice.call(group.querySelectorAll("input"));
      f.counts = Array.prototype.slice.call(group.querySelectorAll(".masrl-n"));
      f.index = i;
    });
  }

  function renderFacets(result) {
    var n = 0;
    filters.forEach(function (f, i) {
      var chosen = state.chosen[i];
      var names = [];
      f.boxes.forEach(function (box, j) {
        var id = f.values[j][0];
        var c = result.counts[i][j];
        box.checked = Boolean(chosen[id]);
        f.counts[j].textContent = " (" + c + ")";
        box.parentNode.classList.toggle("masrl-empty", c === 0 && !chosen[id]);
        if (chosen[id]) names.push(f.values[j][1]);
      });
      f.summaryValue.textContent = names.length ? names.join(", ") : "any (" + result.totals[i] + ")";
      f.node.classList.toggle("masrl-facet--on", names.length > 0);
      n += names.length ? 1 : 0;
    });
    active.textContent = n ? "(" + n + " active)" : "";
  }

  // -- the rows

  function link(href, text) {
    var a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  function subText(row) {
    return Object.keys(row.o || {}).sort().map(function (o) {
      return o + row.o[o].charAt(0).toUpperCase();
    }).join(" ");
  }

  // A cell shows the value's label, or the short text the data gives ("cells": {id: text}); a flag filter
  // may add a mark to another column ("mark": {"column": ..., "text": ...}).
  function cellText(row, key) {
    if (key === "y") return String(row.y);
    if (key === "ve") return row.ve || "";
    var f = byKey[key];
    if (!f) return row[key] === undefined ? "" : String(row[key]);
    if (f.kind === "sub") return subText(row);
    if (f.kind === "list") return (row[key] || []).map(function (v) { return f.label_of[v]; }).join(", ");
    var text = f.cells ? f.cells[row[key]] : f.label_of[row[key]];
    filters.forEach(function (g) {
      if (g.kind === "flag" && g.mark && g.mark.column === key && row[g.k]) text += g.mark.text;
    });
    return text;
  }

  function renderRows(list) {
    var pages = Math.max(1, Math.ceil(list.length / perPage));
    if (state.page > pages) state.page = pages;
    var start = (state.page - 1) * perPage;
    var fragment = document.createDocumentFragment();
    list.slice(start, start + perPage).forEach(function (row) {
      var tr = document.createElement("tr");
      columns.forEach(function (key) {
        var td = document.createElement("td");
        if (key === "t") {
          td.appendChild(link(pageOf(row), row.t));
        } else if (key === "links") {
          // the arXiv id and the code's address come with the details; until then each link opens
          // the entry's page, which shows both
          if (row.pa) td.appendChild(link(row.ax ? "https://arxiv.org/pdf/" + row.ax : pageOf(row), "PDF"));
          if (row.pa && row.cd) td.appendChild(document.createTextNode(" "));
          if (row.cd) td.appendChild(link(row.cu || pageOf(row), "code"));
        } else {
          td.textContent = cellText(row, key);
          if (byKey[key] && byKey[key].cells) td.title = byKey[key].label_of[row[key]] || "";
        }
        tr.appendChild(td);
      });
      fragment.appendChild(tr);
    });
    tbody.textContent = "";
    tbody.appendChild(fragment);
    shown.textContent = String(list.length);
    renderPager(pages);
  }

  function renderPager(pages) {
    pager.textContent = "";
    if (pages <= 1) return;
    function button(text, page, disabled) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = text;
      b.disabled = disabled;
      b.addEventListener("click", function () {
        state.page = page;
        update();
      });
      pager.appendChild(b);
    }
    button("‹ previous", state.page - 1, state.page === 1);
    var note = document.createElement("span");
    note.textContent = " page " + state.page + " of " + pages + " ";
    pager.appendChild(note);
    button("next ›", state.page + 1, state.page === pages);
  }

  function renderHeaders() {
    headers.forEach(function (th) {
      var key = th.getAttribute("data-sort");
      th.setAttribute("aria-sort", state.sort === key ? (state.dir === "desc" ? "descending" : "ascending") : "none");
    });
  }

  // -- the address bar

  function readUrl() {
    var params = new URLSearchParams(window.location.search);
    var unknown = [];
    state.q = params.get("q") || "";
    filters.forEach(function (f, i) {
      state.chosen[i] = {};
      params.getAll(f.k).forEach(function (raw) {
        raw.split(",").forEach(function (value) {
          if (!value) return;
          if (value in f.label_of) state.chosen[i][value] = true;
          else unknown.push(f.label + " \u201c" + value + "\u201d");
        });
      });
    });
    var sort = params.get("sort") || "";
    if (sort && !headers.some(function (th) { return th.getAttribute("data-sort") === sort; })) {
      unknown.push("sort column \u201c" + sort + "\u201d");
      sort = "";
    }
    state.sort = sort;
    state.dir = params.get("dir") === "desc" ? "desc" : "asc";
    state.page = Math.max(1, parseInt(params.get("page"), 10) || 1);
    var known = { q: 1, sort: 1, dir: 1, page: 1 };
    filters.forEach(function (f) { known[f.k] = 1; });
    params.forEach(function (value, key) {
      if (!known[key]) unknown.push("\u201c" + key + "=" + value + "\u201d");
    });
    if (unknown.length) {
      notice.textContent =
        "This address asks for " + unknown.join(", ") + ", which this table does not have, so " +
        (unknown.length === 1 ? "it was" : "they were") + " left out. Pick values from the filters above.";
      notice.hidden = false;
    }
  }

  function writeUrl() {
    var params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    filters.forEach(function (f, i) {
      f.values.forEach(function (pair) {
        if (state.chosen[i][pair[0]]) params.append(f.k, pair[0]);
      });
    });
    if (state.sort) {
      params.set("sort", state.sort);
      params.set("dir", state.dir);
    }
    if (state.page > 1) params.set("page", String(state.page));
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    window.history.replaceState(null, "", url);
  }

  // -- export of the current view

  // The entry `masrl export bib` writes for the row (a test compares them byte for byte): title
  // and names as BibTeX spells them (bt, ba: only where that differs), the venue's year (by: only
  // where it differs from the year of first appearance), the fields after it already escaped (b,
  // or 1 for a preprint's usual journal field), then the identifiers.
  function bibEntry(row) {
    var out = "@" + (row.et || "misc") + "{" + row.k + ",\n\ttitle = {{" + (row.bt || row.t) + "}},\n\tauthor = {" +
      (row.ba || row.au).join(" and ") + (row.ea ? " and others" : "") + "},\n\tyear = {" + (row.by || row.y) + "}";
    // b = 1 stands for the lone journal field every arXiv preprint carries
    var extra = row.b === 1 ? [["journal", "arXiv preprint arXiv:" + row.ax]] : row.b;
    var hasHow = false;
    if (extra) {
      for (var i = 0; i < extra.length; i++) {
        out += ",\n\t" + extra[i][0] + " = {" + extra[i][1] + "}";
        if (extra[i][0] === "howpublished") hasHow = true;
      }
    }
    if (row.et === "misc" && !hasHow) {
      var urls = "\\url{" + urlOf(row) + "}";
      if (row.mw) for (var j = 0; j < row.mw.length; j++) urls += "; \\url{" + row.mw[j] + "}";
      out += ",\n\thowpublished = {" + urls + "}";
    }
    if (row.d) out += ",\n\tdoi = {" + row.d + "}";
    if (row.ax) out += ",\n\teprint = {" + row.ax + "},\n\tarchiveprefix = {arXiv}";
    return out + ",\n\turl = {" + urlOf(row) + "}\n}\n";
  }

  // Text built from many lines, joined every few hundred lines: the pieces then die young, which
  // keeps the garbage collector's work small on 10,000 rows.
  function Chunks(first, separator) {
    this.done = first === null ? [] : [first];
    this.lines = [];
    this.separator = separator;
  }
  Chunks.prototype.push = function (line) {
    this.lines.push(line);
    if (this.lines.length === 256) {
      this.done.push(this.lines.join(this.separator));
      this.lines = [];
    }
  };
  Chunks.prototype.text = function () {
    if (this.lines.length) this.done.push(this.lines.join(this.separator));
    this.lines = [];
    return this.done.join(this.separator);
  };

  // RFC 4180. Free text is always quoted (one scan for quotes, which are doubled); vocabulary ids
  // are quoted only if they hold a comma, quote or line break.
  function quoted(value) {
    if (value === undefined || value === null || value === "") return "";
    var text = "" + value;
    return '"' + (text.indexOf('"') === -1 ? text : text.split('"').join('""')) + '"';
  }

  function csvCell(value) {
    var text = value === undefined || value === null ? "" : "" + value;
    return text.indexOf(",") === -1 && text.indexOf('"') === -1 && text.indexOf("\n") === -1 && text.indexOf("\r") === -1
      ? text : quoted(text);
  }

  // Columns: key, title, authors, year, venue, then one per filter of the data (tag fields and
  // flags, by value id; not a filter marked "csv": false), the sub-decisions ("O1:learned O3:designed"), identifiers and links.
  // Tag cells are looked up by the value positions computed at load (at), not by name.
  function csv(list) {
    var tags = [];
    var sub = -1;
    filters.forEach(function (f, i) {
      if (f.kind === "sub") sub = i;
      else if (f.k !== "y" && f.csv !== false) tags.push(i);  // "csv": false, a filter the columns already hold
    });
    var cellOf = filters.map(function (f) {
      return f.values.map(function (pair) {
        return f.kind === "sub" && /:any$/.test(pair[0]) ? "" : csvCell(pair[0]);
      });
    });
    var head = ["key", "title", "authors", "year", "venue"]
      .concat(tags.map(function (i) { return filters[i].name; }))
      .concat(sub >= 0 ? [filters[sub].name] : [])
      .concat(["arxiv", "doi", "url", "code", "pdf"]);
    var lines = new Chunks(head.join(","), "\r\n");
    var parts = [];
    for (var r = 0; r < list.length; r++) {
      var row = list[r];
      parts.length = 0;  // a row's cells, joined once: no string is built piece by piece
      // keys and arXiv ids are [a-z0-9.-] by the schema: never quoted
      parts.push(row.k, quoted(row.t), quoted(row.au.join("; ") + (row.ea ? "; et al." : "")), row.y, quoted(row.ve));
      var i = row._i;
      for (var t = 0; t < tags.length; t++) {
        // every value a row holds: one for most fields, several for a multi-valued one
        var column = at[tags[t]];
        var first = column.from[i];
        var held = column.from[i + 1] - first;
        var cell = held === 1 ? cellOf[tags[t]][column.pos[first]] : "";
        for (var h = 0; held > 1 && h < held; h++) cell += (h ? ";" : "") + filters[tags[t]].values[column.pos[first + h]][0];
        parts.push(held > 1 ? csvCell(cell) : cell);
      }
      if (sub >= 0) {
        var codes = "";
        var subs = at[sub];
        for (var j = subs.from[i]; j < subs.from[i + 1]; j++) {
          var code = cellOf[sub][subs.pos[j]];
          if (code) codes += (codes ? " " : "") + code;
        }
        parts.push(codes);
      }
      parts.push(row.ax || "", quoted(row.d), quoted(urlOf(row)), quoted(row.cu), row.ax ? "https://arxiv.org/pdf/" + row.ax : "");
      lines.push(parts.join(","));
    }
    return lines.text() + "\r\n";
  }

  function exportText(kind) {
    if (kind !== "bib") return csv(view);
    var entries = new Chunks(null, "\n");
    for (var i = 0; i < view.length; i++) entries.push(bibEntry(view[i]));
    return entries.text();
  }

  function download(kind) {
    loadDetails().then(function (ok) { if (ok) save(kind); });
  }

  function save(kind) {
    var text = exportText(kind);
    var type = kind === "bib" ? "application/x-bibtex" : "text/csv";
    var url = URL.createObjectURL(new Blob([text], { type: type + ";charset=utf-8" }));
    var a = document.createElement("a");
    a.href = url;
    a.download = "masrl-papers." + kind;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  // -- wiring

  function update() {
    var result = evaluate();
    view = sorted(result.list);
    renderRows(view);
    renderFacets(result);
    renderHeaders();
    writeUrl();
  }

  // For tests and `masrl bench`: set filters ({k: [values]}, q: text) and read exports.
  window.masrlPapers = {
    filter: function (next) {
      Object.keys(next).forEach(function (k) {
        if (k === "q") { state.q = next.q; return; }
        var f = byKey[k];
        if (!f) return;
        state.chosen[f.index] = {};
        [].concat(next[k]).forEach(function (v) { if (v) state.chosen[f.index][v] = true; });
      });
      state.page = 1;
      update();
      return Number(shown.textContent);
    },
    exportText: exportText,
    // a promise of the details (authors, summaries, BibTeX fields): exportText needs them
    ready: loadDetails,
  };

  buildFacets();
  box.hidden = false;
  root.querySelector(".masrl-export").hidden = false;
  if (window.matchMedia && window.matchMedia("(max-width: 44.9375em)").matches) box.open = false;

  form.addEventListener("change", function (event) {
    var target = event.target;
    if (target.type !== "checkbox") return;
    var f = byKey[target.name];
    if (!f) return;
    if (target.checked) state.chosen[f.index][target.value] = true;
    else delete state.chosen[f.index][target.value];
    state.page = 1;
    update();
  });
  search.addEventListener("focus", loadDetails);
  search.addEventListener("input", function () {
    loadDetails();
    state.q = search.value;
    state.page = 1;
    update();
  });
  root.querySelector(".masrl-reset").addEventListener("click", function () {
    state.q = "";
    state.chosen = filters.map(function () { return {}; });
    state.page = 1;
    search.value = "";
    notice.hidden = true;
    update();
  });
  root.querySelectorAll("[data-export]").forEach(function (button) {
    button.addEventListener("click", function () { download(button.getAttribute("data-export")); });
  });
  // One open filter list at a time; a click elsewhere closes it.
  facets.addEventListener("toggle", function (event) {
    if (!event.target.open) return;
    filters.forEach(function (f) { if (f.node !== event.target) f.node.open = false; });
  }, true);
  document.addEventListener("click", function (event) {
    if (!facets.contains(event.target)) filters.forEach(function (f) { f.node.open = false; });
  });
  headers.forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      var key = th.getAttribute("data-sort");
      if (state.sort === key) {
        state.dir = state.dir === "asc" ? "desc" : "asc";
      } else {
        state.sort = key;
        state.dir = key === "y" ? "desc" : "asc";
      }
      update();
    });
  });

  readUrl();
  search.value = state.q;
  update();
  if (state.q) loadDetails();
})();
