// Northwind Outfitters storefront script, also served to Staybook as static/churn.js: the ref_churn mutation
// (body[data-churn]). The cart and the search results (Staybook: the results list and the property page's
// availability block) re-render at the first press of a mouse button after the latest user action (a click,
// input, key press or submit) or after the page load, for the action that opened the page: every node
// of a [data-churn-region] is replaced by a fresh copy (form values kept), and a few secondary names alternate
// ([data-alt-label] ↔ aria-label, [data-alt-text] ↔ text). Like a list that refreshes its prices when the user
// touches it, a snapshot taken after an action shows nodes that the next click replaces.
//
// Deterministic, no timer (issue 17): the re-render runs inside the mousedown of the first press after an
// action, so the press goes to the old node and the release to its fresh copy; the browser dispatches no
// click (the pressed node has left the page), and the agent's click fails as a stale ref whatever the
// machine's speed. The next press, on the fresh nodes, is an ordinary click. Nothing else re-renders: a
// fill or a select is never split, and a snapshot always shows the nodes the next press meets first.
(function () {
  "use strict";
  if (!document.body.hasAttribute("data-churn")) return;
  var gen = 0;
  var due = true; // the page load is the action that opened the page
  function fields(root) { return root.querySelectorAll("input, select, textarea"); }
  function rerender() {
    gen++;
    document.querySelectorAll("[data-churn-region]").forEach(function (region) {
      var fresh = region.cloneNode(true);
      var olds = fields(region), news = fields(fresh);
      for (var i = 0; i < olds.length && i < news.length; i++) {
        if (olds[i].type === "checkbox" || olds[i].type === "radio") news[i].checked = olds[i].checked;
        else news[i].value = olds[i].value;
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
      // Focus is not carried over: the press that re-renders moves it anyway.
      region.replaceWith(fresh);
    });
    document.body.setAttribute("data-churn-gen", String(gen));
  }
  // No "change": a field edited before the press fires it on the fresh copy once the press has moved the
  // focus (after the re-render), which would make the next press re-render again; its "input" counted.
  ["click", "input", "keydown", "submit"].forEach(function (type) {
    document.addEventListener(type, function () { due = true; }, true);
  });
  document.addEventListener("mousedown", function () {
    if (!due) return;
    due = false;
    rerender();
  }, true);
})();
