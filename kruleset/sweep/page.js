(function () {
  "use strict";
  // Filters by result and name; a row opens its detail row below it (the table's
  // layout is fixed, so nothing else moves sideways); a matrix cell opens its row;
  // clicking a command selects it and copies it when the browser lets the page.
  var rows = Array.prototype.slice.call(document.querySelectorAll("#variants tbody tr.variant"));
  var status = document.getElementById("status-filter");
  var text = document.getElementById("name-filter");
  var shown = document.getElementById("shown");
  function detailOf(row) { return document.getElementById(row.getAttribute("data-detail")); }
  function setOpen(row, open) {
    var button = row.querySelector("button.toggle");
    button.setAttribute("aria-expanded", open ? "true" : "false");
    row.classList.toggle("open", open);
    detailOf(row).hidden = !open || row.hidden;
  }
  function apply() {
    var want = status.value, needle = text.value.toLowerCase(), n = 0;
    rows.forEach(function (r) {
      var ok = (want === "all" || r.getAttribute("data-status") === want) &&
               r.getAttribute("data-name").toLowerCase().indexOf(needle) >= 0;
      r.hidden = !ok;
      detailOf(r).hidden = !ok || !r.classList.contains("open");
      if (ok) n += 1;
    });
    shown.textContent = n + " of " + rows.length + " variants shown";
  }
  function openById(id) {
    var row = document.getElementById(id);
    if (!row || !row.classList.contains("variant")) return;
    if (row.hidden) { status.value = "all"; text.value = ""; apply(); }
    setOpen(row, true);
    row.scrollIntoView({block: "center"});
    row.querySelector("button.toggle").focus({preventScroll: true});
  }
  rows.forEach(function (r) {
    r.querySelector("button.toggle").addEventListener("click", function () {
      setOpen(r, !r.classList.contains("open"));
    });
    var copy = r.querySelector("button.copy");
    if (copy) copy.addEventListener("click", function () {
      setOpen(r, true);
      pick(detailOf(r).querySelector("code.cmd"));
    });
  });
  function pick(code) {
    var range = document.createRange();
    range.selectNodeContents(code);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    var said = code.closest(".commands").querySelector(".copied");
    said.textContent = "selected (Ctrl+C copies it)";
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(code.textContent).then(function () {
        said.textContent = "copied";
      }, function () {});
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("code.cmd"), function (code) {
    code.addEventListener("click", function () { pick(code); });
  });
  Array.prototype.forEach.call(document.querySelectorAll("#matrix a[href^='#']"), function (a) {
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      openById(a.getAttribute("href").slice(1));
    });
  });
  // "#status=failed&name=a-" presets the filters; "#v3" opens variant #3's row and
  // "#variant=node%3Dc-1" the row of that name (a value may hold "=": split at the first)
  var hash = location.hash.replace(/^#/, ""), target = null;
  hash.split("&").forEach(function (part) {
    var at = part.indexOf("="), key = at < 0 ? part : part.slice(0, at);
    var value = at < 0 ? "" : decodeURIComponent(part.slice(at + 1));
    if (key === "status") status.value = value;
    if (key === "name") text.value = value;
    if (/^v\d+$/.test(key)) target = key;
    if (key === "variant") {
      rows.forEach(function (r) { if (r.getAttribute("data-name") === value) target = r.id; });
    }
  });
  status.addEventListener("change", apply);
  text.addEventListener("input", apply);
  apply();
  if (target) openById(target);
  document.body.setAttribute("data-ready", "yes");
})();
