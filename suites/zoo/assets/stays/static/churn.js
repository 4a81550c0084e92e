// Staybook's ref_churn script: the shop's mechanism (assets/shop/static/shop.js, kept identical from
// "(function" on; copied so the apps stay independent). With the ref_churn mutation on (body[data-churn-ms])
// every [data-churn-region] (the results list, the property page's availability block) re-renders a fixed delay
// after the last user action — and after the page loads, for the action that opened it: each region is
// replaced by a fresh copy (form values and focus kept), and a few secondary names alternate ([data-alt-label]
// ↔ aria-label, [data-alt-text] ↔ text). Deterministic: one fixed delay counted from the latest action (a new
// action restarts it; a fill in progress defers it by 50 ms steps), no jitter.
(function () {
  "use strict";
  var ms = parseInt(document.body.getAttribute("data-churn-ms") || "0", 10);
  if (!ms) return;
  var gen = 0;
  var timer = null;
  function fields(root) { return root.querySelectorAll("input, select, textarea"); }
  // An edit is in progress when a field of a region got focus and no input followed yet: a fill is focus,
  // select-all, insert, and swapping the node between those steps would insert into the old value ("1" → "21").
  var focusedAt = 0, inputAt = 0;
  document.addEventListener("focusin", function () { focusedAt = Date.now(); }, true);
  document.addEventListener("input", function () { inputAt = Date.now(); }, true);
  function editing() {
    var el = document.activeElement;
    return el && el.closest && el.closest("[data-churn-region]") && el.matches("input, select, textarea") &&
      focusedAt > inputAt && Date.now() - focusedAt < 1000;
  }
  function rerender() {
    timer = null;
    if (editing()) { timer = setTimeout(rerender, 50); return; }
    gen++;
    document.querySelectorAll("[data-churn-region]").forEach(function (region) {
      var fresh = region.cloneNode(true);
      var olds = fields(region), news = fields(fresh), focused = -1;
      for (var i = 0; i < olds.length && i < news.length; i++) {
        if (olds[i].type === "checkbox" || olds[i].type === "radio") news[i].checked = olds[i].checked;
        else news[i].value = olds[i].value;
        if (olds[i] === document.activeElement) focused = i;
      }
      fresh.querySelectorAll("[data-alt-label]").forEach(function (el) {
        var alt = el.getAttribute("data-alt-label");
        el.setAttribute("data-alt-label", el.getAttribute("aria-label") || "");
        el.setAttribute("aria-label", alt);
      });
      fresh.querySelectorAll("[data-alt-text]").forEach(function (el) {
        var alt = el.getAttribute("data-alt-text");
        el.setAttribute("data-alt-text", el.textContent);
        el.textContent = alt;
      });
      fresh.setAttribute("data-churn-gen", String(gen));
      region.replaceWith(fresh);
      if (focused >= 0) news[focused].focus();
    });
    document.body.setAttribute("data-churn-gen", String(gen));
  }
  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(rerender, ms);
  }
  ["click", "input", "change", "keydown", "submit"].forEach(function (type) {
    document.addEventListener(type, schedule, true);
  });
  schedule();
})();
