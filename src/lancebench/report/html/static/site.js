// lancebench report: draws the plots from the JSON data islands and filters the task table.
// Loaded from the site's own folder; the page's Content-Security-Policy allows nothing else.
(function () {
  "use strict";

  function drawCharts() {
    if (typeof Chart === "undefined") return;
    document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
      var island = document.getElementById("data-" + canvas.dataset.chart);
      if (!island) return;
      var config = JSON.parse(island.textContent);
      config.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } } } }, config.options || {});
      new Chart(canvas, config);
    });
  }

  var MARK = { resolved: "\u2713", unresolved: "\u2717", invalid: "!" };
  var STATUS = { r: "resolved", u: "unresolved", i: "invalid" };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function taskRow(t, jobs) {
    // t = [task, dataset, price text, fields, cells]; a cell's trial = [status code, attempt, job
    // index, data file number, trial key, reason] (report/html/tasks.py: task_table_data); text
    // only ever goes in as textContent
    var tr = el("tr", "task-row"), name = el("td");
    name.appendChild(el("span", "task-name", t[0]));
    if (t[1]) { name.appendChild(document.createTextNode(" ")); name.appendChild(el("span", "muted", t[1])); }
    tr.appendChild(name);
    tr.appendChild(el("td", "", (t[3].split || []).join(", ")));
    tr.appendChild(el("td", "", (t[3].kind || []).join(", ")));
    tr.appendChild(el("td", "n", t[2]));
    t[4].forEach(function (cell) {
      var td = el("td", "outcome");
      cell.forEach(function (c) {
        var status = STATUS[c[0]] || "unknown";
        var a = el("a", "trial-link " + status, MARK[status] || "?");
        a.setAttribute("href", "trial.html?t=" + jobs[c[2]] + "/" + c[3] + "/" + c[4]);
        a.title = "attempt " + c[1] + ": " + status + (c[5] ? " \u2014 " + c[5] : "");
        td.appendChild(a);
      });
      tr.appendChild(td);
    });
    return tr;
  }

  function taskTable() {
    var island = document.getElementById("data-tasks");
    var tbody = document.querySelector("#task-table tbody");
    if (!island || !tbody) return;
    var data = JSON.parse(island.textContent), rows = data.rows, size = data.per_page;
    var form = document.getElementById("task-filters");
    var selects = form ? Array.prototype.slice.call(form.querySelectorAll("select[data-field]")) : [];
    var count = document.getElementById("task-count"), pager = document.getElementById("task-pager");
    var prev = document.getElementById("task-prev"), next = document.getElementById("task-next");
    var pageText = document.getElementById("task-page");
    var matching = rows, page = 0;
    function pages() { return Math.max(1, Math.ceil(matching.length / size)); }
    function draw() {
      var frag = document.createDocumentFragment();
      matching.slice(page * size, (page + 1) * size).forEach(function (t) { frag.appendChild(taskRow(t, data.jobs)); });
      tbody.replaceChildren(frag);
      if (count) count.textContent = matching.length + " of " + rows.length + " tasks";
      if (pager) {
        pager.hidden = pages() < 2;
        pageText.textContent = "page " + (page + 1) + " of " + pages();
        prev.disabled = page === 0;
        next.disabled = page >= pages() - 1;
      }
    }
    function apply() {
      matching = rows.filter(function (t) {
        return selects.every(function (s) {
          var values = t[3][s.dataset.field] || ["(none)"];
          return s.value === "" || values.indexOf(s.value) >= 0;
        });
      });
      page = 0;
      draw();
    }
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    if (prev) prev.addEventListener("click", function () { page = Math.max(0, page - 1); draw(); });
    if (next) next.addEventListener("click", function () { page = Math.min(pages() - 1, page + 1); draw(); });
    apply();
  }

  function unpack(b64) {
    // a data file's payload: base64 of gzip of JSON (report/html/site.py: chunk_script)
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function trialNav() {
    var nav = document.getElementById("trial-nav");
    if (!nav) return;
    document.querySelectorAll("#trial-main section[id] > h2").forEach(function (h) {
      var a = el("a", "", h.textContent.replace(/\s*\(.*\)$/, ""));
      a.setAttribute("href", "#" + h.parentNode.id);
      nav.appendChild(a);
    });
  }

  function showTrial() {
    // trial.html?t=<job>/<n>/<trial>: the trial's body is in the data file trials/<job>/<n>.js,
    // loaded as a script (a page opened from disk may not fetch files), HTML rendered and escaped
    // by the site's builder
    var main = document.getElementById("trial-main");
    if (!main) return;
    function fail(text) { main.replaceChildren(el("p", "warn", text)); }
    var m = /^([A-Za-z0-9_.-]+)\/(\d+)\/([A-Za-z0-9_.-]+)$/.exec(new URLSearchParams(location.search).get("t") || "");
    if (!m) { fail("This address names no trial; open one from the index."); return; }
    if (typeof DecompressionStream === "undefined") { fail("This browser cannot read the site's data files."); return; }
    var chunk = "trials/" + m[1] + "/" + m[2] + ".js";
    window.lbChunk = function (path, data) {
      if (path !== chunk) return;
      unpack(data).then(function (payload) {
        var t = payload.trials[m[3]];
        if (!t) { fail("No trial " + m[3] + " in " + chunk + "."); return; }
        main.innerHTML = t.html;
        document.title = t.title;
        var target = document.getElementById("instruction-text");
        if (target && t.instruction) target.innerHTML = payload.instructions[t.instruction].html;
        trialNav();
        var anchor = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (anchor) anchor.scrollIntoView();
      }, function (e) { fail("Cannot read " + chunk + ": " + e); });
    };
    var script = document.createElement("script");
    script.src = chunk;
    script.onerror = function () { fail("Cannot load " + chunk + "."); };
    document.body.appendChild(script);
  }

  document.addEventListener("DOMContentLoaded", function () { showTrial(); taskTable(); drawCharts(); });
})();
