/*
 * The papers table: text search, one filter per taxonomy field, sortable columns, paging.
 *
 * Data comes from the JSON element #masrl-paper-data that `masrl build` writes into the page.
 * Every record string is put into the page with textContent, never as HTML, so a title cannot
 * inject markup. The filter state lives in the query string, so a filtered view can be shared.
 * Option labels carry counts that follow the other filters (facets), and the count line says how
 * many entries match. No request leaves the page.
 */
(function () {
  "use strict";

  var root = document.getElementById("masrl-papers");
  var dataNode = document.getElementById("masrl-paper-data");
  if (!root || !dataNode) return;

  var data = JSON.parse(dataNode.textContent);
  var rows = data.rows;
  var vocab = data.vocab;
  var perPage = parseInt(root.getAttribute("data-per-page"), 10) || 100;
  var form = root.querySelector(".masrl-filters");
  var tbody = root.querySelector("tbody");
  var shown = root.querySelector(".masrl-shown");
  var pager = root.querySelector(".masrl-pager");
  var headers = root.querySelectorAll("th[data-sort]");

  // Fields filtered by exact value, with the vocabulary order used to sort them.
  var FIELDS = ["c", "rl", "f", "r", "u", "tp", "sc", "ro", "v"];
  var ALL_LABEL = "any";
  var order = {};
  var label = {};
  FIELDS.forEach(function (f) {
    order[f] = {};
    label[f] = {};
    vocab[f].forEach(function (pair, i) {
      order[f][pair[0]] = i;
      label[f][pair[0]] = pair[1];
    });
  });
  var subLabel = {};
  vocab.o.forEach(function (pair) { subLabel[pair[0]] = pair[1]; });
  var codeLabel = {};
  vocab.oc.forEach(function (pair) { codeLabel[pair[0]] = pair[1]; });

  // Pre-compute each row's lower-case search text once.
  rows.forEach(function (row) {
    row._text = (row.t + " " + row.k + " " + row.a + " " + row.x).toLowerCase();
  });

  var state = { q: "", sort: "", dir: "asc", page: 1 };
  var filterNames = FIELDS.concat(["s", "o", "y"]);
  filterNames.forEach(function (f) { state[f] = ""; });

  function matchesField(row, f, value) {
    if (!value) return true;
    if (f === "s") return value === "yes" ? row.s : !row.s;
    if (f === "y") return String(row.y) === value;
    if (f === "o") {
      var parts = value.split(":");
      var code = row.o[parts[0]];
      return parts[1] === "any" ? Boolean(code) : code === parts[1];
    }
    return row[f] === value;
  }

  function matchesText(row, words) {
    for (var i = 0; i < words.length; i++) {
      if (row._text.indexOf(words[i]) === -1) return false;
    }
    return true;
  }

  function words() {
    return state.q.toLowerCase().split(/\s+/).filter(Boolean);
  }

  // Rows matching every filter except `skip` (for facet counts) or all of them.
  function matching(skip) {
    var w = words();
    return rows.filter(function (row) {
      if (!matchesText(row, w)) return false;
      for (var i = 0; i < filterNames.length; i++) {
        var f = filterNames[i];
        if (f !== skip && !matchesField(row, f, state[f])) return false;
      }
      return true;
    });
  }

  function optionList(f) {
    if (f === "s") return [["yes", "strict only"], ["no", "not strict"]];
    if (f === "y") return data.years.map(function (y) { return [String(y), String(y)]; });
    if (f === "o") {
      var out = [];
      vocab.o.forEach(function (pair) {
        out.push([pair[0] + ":any", pair[1] + " — any"]);
        vocab.oc.forEach(function (code) {
          out.push([pair[0] + ":" + code[0], pair[1] + " — " + code[1].toLowerCase()]);
        });
      });
      return out;
    }
    return vocab[f];
  }

  function fillSelects() {
    filterNames.forEach(function (f) {
      var select = form.querySelector('select[name="' + f + '"]');
      if (!select) return;
      var pool = matching(f);
      select.textContent = "";
      var any = document.createElement("option");
      any.value = "";
      any.textContent = ALL_LABEL + " (" + pool.length + ")";
      select.appendChild(any);
      optionList(f).forEach(function (pair) {
        var n = 0;
        for (var i = 0; i < pool.length; i++) {
          if (matchesField(pool[i], f, pair[0])) n++;
        }
        var option = document.createElement("option");
        option.value = pair[0];
        option.textContent = pair[1] + " (" + n + ")";
        if (n === 0 && state[f] !== pair[0]) option.className = "masrl-empty";
        select.appendChild(option);
      });
      select.value = state[f];
    });
  }

  function sortKey(row, key) {
    if (key === "y") return row.y;
    if (key === "t") return row.t.toLowerCase();
    if (key === "o") return Object.keys(row.o).sort().join(" ");
    return key in order ? order[key][row[key]] : row[key];
  }

  function sorted(list) {
    if (!state.sort) return list;
    var key = state.sort;
    var sign = state.dir === "desc" ? -1 : 1;
    return list.slice().sort(function (a, b) {
      var x = sortKey(a, key);
      var y = sortKey(b, key);
      if (x < y) return -sign;
      if (x > y) return sign;
      return a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
    });
  }

  function cell(tr, text) {
    var td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function subText(row) {
    return Object.keys(row.o).sort().map(function (o) {
      return o + (row.o[o] === "learned" ? "L" : "D");
    }).join(" ");
  }

  function renderRows(list) {
    var pages = Math.max(1, Math.ceil(list.length / perPage));
    if (state.page > pages) state.page = pages;
    var start = (state.page - 1) * perPage;
    var fragment = document.createDocumentFragment();
    list.slice(start, start + perPage).forEach(function (row) {
      var tr = document.createElement("tr");
      var td = document.createElement("td");
      var a = document.createElement("a");
      a.href = encodeURIComponent(row.k) + "/";
      a.textContent = row.t;
      td.appendChild(a);
      tr.appendChild(td);
      cell(tr, String(row.y));
      cell(tr, label.c[row.c]);
      cell(tr, label.rl[row.rl]);
      cell(tr, row.f);
      cell(tr, label.u[row.u] + (row.s ? " (strict)" : ""));
      cell(tr, label.tp[row.tp]);
      cell(tr, subText(row));
      cell(tr, label.sc[row.sc]);
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

  function readUrl() {
    var params = new URLSearchParams(window.location.search);
    state.q = params.get("q") || "";
    filterNames.forEach(function (f) { state[f] = params.get(f) || ""; });
    state.sort = params.get("sort") || "";
    state.dir = params.get("dir") === "desc" ? "desc" : "asc";
    state.page = Math.max(1, parseInt(params.get("page"), 10) || 1);
  }

  function writeUrl() {
    var params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    filterNames.forEach(function (f) { if (state[f]) params.set(f, state[f]); });
    if (state.sort) {
      params.set("sort", state.sort);
      params.set("dir", state.dir);
    }
    if (state.page > 1) params.set("page", String(state.page));
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    window.history.replaceState(null, "", url);
  }

  function update() {
    var list = sorted(matching(null));
    renderRows(list);
    fillSelects();
    renderHeaders();
    writeUrl();
  }

  // Expose the filter for measurement (`masrl bench` times it in Chromium).
  window.masrlPapers = {
    filter: function (next) {
      Object.keys(next).forEach(function (k) { state[k] = next[k]; });
      state.page = 1;
      update();
      return Number(shown.textContent);
    },
  };

  form.addEventListener("input", function (event) {
    var target = event.target;
    if (!target.name) return;
    state[target.name] = target.value;
    state.page = 1;
    update();
  });
  root.querySelector(".masrl-reset").addEventListener("click", function () {
    state.q = "";
    filterNames.forEach(function (f) { state[f] = ""; });
    state.page = 1;
    form.querySelector('input[name="q"]').value = "";
    update();
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
  form.querySelector('input[name="q"]').value = state.q;
  update();
})();
