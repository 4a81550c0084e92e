// Staybook's ref_churn script — the same mechanism as the shop's (assets/shop/static/shop.js), copied so the
// apps stay independent. With the ref_churn mutation on (body[data-churn-ms]) every [data-churn-region] (the
// results list, the property page's availability block) re-renders a fixed delay after every user action —
// and once after the page loads, for the action that opened it: each region is replaced by a fresh copy (form
// values and focus kept), and a few secondary names alternate ([data-alt-label] ↔ aria-label,
// [data-alt-text] ↔ text). Deterministic: one fixed delay, no jitter; actions during a pending re-render do
// not postpone it.
(function () {
  "use strict";
  var ms = parseInt(document.body.getAttribute("data-churn-ms") || "0", 10);
  if (!ms) return;
  var gen = 0;
  var timer = null;
  function fields(root) { return root.querySelectorAll("input, select, textarea"); }
  function rerender() {
    timer = null;
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
        if (alt) el.setAttribute("aria-label", alt); else el.removeAttribute("aria-label");
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
    if (timer === null) timer = setTimeout(rerender, ms);
  }
  ["click", "input", "change", "keydown", "submit"].forEach(function (type) {
    document.addEventListener(type, schedule, true);
  });
  schedule();
})();
