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

  function filterTasks() {
    var form = document.getElementById("task-filters");
    if (!form) return;
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-field]"));
    var rows = Array.prototype.slice.call(document.querySelectorAll("#task-table tr.task-row"));
    var parsed = rows.map(function (row) { return JSON.parse(row.dataset.fields); });
    var count = document.getElementById("task-count");
    function apply() {
      var shown = 0;
      rows.forEach(function (row, i) {
        var ok = selects.every(function (s) {
          var values = parsed[i][s.dataset.field] || ["(none)"];
          return s.value === "" || values.indexOf(s.value) >= 0;
        });
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      if (count) count.textContent = shown + " of " + rows.length + " tasks";
    }
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    apply();
  }

  document.addEventListener("DOMContentLoaded", function () { drawCharts(); filterTasks(); });
})();
