(function () {
  "use strict";
  var doc = document;
  function all(sel, root) { return Array.prototype.slice.call((root || doc).querySelectorAll(sel)); }
  function apply() {
    var show = {};
    all('input[name="sev"]').forEach(function (c) { show[c.value] = c.checked; });
    var sel = doc.getElementById("rule-filter");
    var rule = sel ? sel.value : "";
    var only = doc.getElementById("only-findings");
    only = !!(only && only.checked);
    all("li.finding").forEach(function (li) {
      li.hidden = !(show[li.dataset.severity] && (rule === "" || li.dataset.rule === rule));
    });
    // Children come after their parents: walking backwards decides every
    // document after the documents below it.
    all("li.doc").reverse().forEach(function (li) {
      var d = li.firstElementChild;
      var visible = all(":scope > ol.findings > li.finding:not([hidden]), :scope > ul > li.doc:not([hidden])", d).length > 0;
      li.hidden = only && !visible;
    });
  }
  var filters = doc.getElementById("filters");
  if (filters) {
    // Hidden in the page: without this script it could not filter.
    filters.hidden = false;
    filters.addEventListener("change", apply);
    apply();
  }
  // A link to a finding (#doc-3-f2, #doc-3-f2-src) opens the documents
  // around it.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && doc.getElementById(id);
    for (; el; el = el.parentElement) { if (el.tagName === "DETAILS") { el.open = true; } }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  function setAll(open) { all("details").forEach(function (d) { d.open = open; }); }
  var ex = doc.getElementById("expand-all");
  if (ex) { ex.addEventListener("click", function () { setAll(true); }); }
  var co = doc.getElementById("collapse-all");
  if (co) { co.addEventListener("click", function () { setAll(false); }); }
})();
