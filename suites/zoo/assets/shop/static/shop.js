// Northwind Outfitters storefront script. With the ref_churn mutation on (body[data-churn-ms]), the cart and
// the search results re-render a fixed delay after the last user action — and after the page loads, for the
// action that opened it: every node of a [data-churn-region] is replaced by a fresh copy (form values kept),
// and a few secondary names alternate ([data-alt-label] ↔ aria-label, [data-alt-text] ↔ text). Deterministic:
// one fixed delay counted from the latest action (a new action restarts it; a fill or a click in progress defers
// it by 50 ms steps), no jitter — so a snapshot taken less than the delay after an action always shows the old
// nodes, and one taken later always the new ones.
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
  // A click is in progress from its pointerdown to its click (or auxclick / contextmenu, or a cancelled
  // pointer). Playwright's click is three CDP input events (move, press, release), and its hit-target check
  // runs on the first pointer event only; swapping the node between press and release sends the mouseup to
  // the fresh copy and the click to no link at all (the pressed node is gone), while Playwright reports
  // success: a click that did nothing (issue 17). Like a fill, a press is never split by a re-render.
  var down = false, downAt = 0;
  document.addEventListener("pointerdown", function () { down = true; downAt = Date.now(); }, true);
  ["click", "auxclick", "contextmenu", "pointercancel"].forEach(function (type) {
    document.addEventListener(type, function () { down = false; }, true);
  });
  function pressing() { return down && Date.now() - downAt < 1000; }
  function rerender() {
    timer = null;
    if (editing() || pressing()) { timer = setTimeout(rerender, 50); return; }
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
