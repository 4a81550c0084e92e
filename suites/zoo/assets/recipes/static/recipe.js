// Spoonful recipe page script: the ½x/1x/2x ingredient scaler, the Save toggle, the full nutrition label
// (fetched from api/nutrition/<id> when the page loads, shown by "Show full nutrition label"), and the
// legacy global helper window.computeScaledServings(servings) kept for embeds and the print view. The page
// itself never calls computeScaledServings. Under the busy_script mutation (article[data-busy-ms]) the helper
// blocks synchronously for that many milliseconds before it computes (a loop of blockingCall). Deterministic:
// no timers.
(function () {
  "use strict";
  var root = document.getElementById("recipe");
  if (!root) return;
  var baseServings = parseInt(root.getAttribute("data-servings"), 10) || 1;
  var busyMs = parseInt(root.getAttribute("data-busy-ms") || "0", 10);
  // blockingCall is one synchronous request, as legacy code makes them: api/busy-tick answers after 100 ms
  // (Zoo busyTick). The main thread waits in it without running, so the loop around it holds the tab for its
  // whole time as a CPU-bound spin would, without taking a core from the other pages on the machine; V8
  // terminates the loop (Runtime.terminateExecution, an evaluate's timeout) when the call returns. A call that
  // fails or is answered early (the page is closing, a blocked route, a 404 from a deleted tenant) waits out the
  // rest of its 100 ms on the clock, so that the loop never floods the server and the console with requests; that
  // wait spins (the main thread has no blocking sleep: Atomics.wait is not allowed there), so only answered
  // ticks leave the core free.
  function blockingCall() {
    var t0 = Date.now(), x = new XMLHttpRequest();
    try { x.open("GET", "api/busy-tick", false); x.send(); } catch (e) { /* go on */ }
    while (Date.now() - t0 < 100) { /* the tick's rest */ }
  }

  var FRACTIONS = [[0, ""], [0.125, "⅛"], [0.25, "¼"], [1 / 3, "⅓"], [0.5, "½"], [2 / 3, "⅔"], [0.75, "¾"], [1, ""]];

  // fmt renders a quantity with vulgar fractions: 2.333 → "2 ⅓", 0.5 → "½", 3 → "3".
  function fmt(x) {
    var whole = Math.floor(x + 1e-9), frac = x - whole, best = FRACTIONS[0];
    FRACTIONS.forEach(function (f) { if (Math.abs(frac - f[0]) < Math.abs(frac - best[0])) best = f; });
    if (best[0] === 1) { whole += 1; best = FRACTIONS[0]; }
    if (whole === 0) return best[1] || "0";
    return best[1] ? whole + " " + best[1] : String(whole);
  }

  function items() { return Array.prototype.slice.call(root.querySelectorAll(".ingredient-list li")); }

  // scaled lists the ingredients multiplied by factor: [{quantity: "4", text: "cups all-purpose flour"}].
  function scaled(factor) {
    return items().map(function (li) {
      var q = li.querySelector(".qty");
      var rest = li.textContent.substring(q ? q.textContent.length : 0).trim();
      return {quantity: q ? fmt(parseFloat(q.getAttribute("data-value")) * factor) : null, text: rest};
    });
  }

  window.computeScaledServings = function (servings) {
    if (busyMs > 0) {
      var end = Date.now() + busyMs;
      while (Date.now() < end) { blockingCall(); /* recompute (legacy) */ }
    }
    var n = Number(servings) > 0 ? Number(servings) : baseServings;
    return {servings: n, factor: n / baseServings, ingredients: scaled(n / baseServings)};
  };

  var note = root.querySelector(".scale-note");
  root.querySelectorAll(".scaler button").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var factor = parseFloat(btn.getAttribute("data-scale"));
      root.querySelectorAll(".scaler button").forEach(function (b) { b.setAttribute("aria-pressed", String(b === btn)); });
      items().forEach(function (li) {
        var q = li.querySelector(".qty");
        if (q) q.textContent = fmt(parseFloat(q.getAttribute("data-value")) * factor);
      });
      var label = btn.textContent;
      note.textContent = factor === 1 ? "Original recipe (1x) yields " + baseServings + " servings"
        : "Recipe scaled to " + label + " yields " + Math.round(baseServings * factor * 10) / 10 + " servings";
    });
  });

  var save = root.querySelector(".action-save");
  if (save) save.addEventListener("click", function () {
    var on = save.getAttribute("aria-pressed") !== "true";
    save.setAttribute("aria-pressed", String(on));
    save.textContent = on ? "Saved" : "Save";
  });

  var panel = document.getElementById("nutrition-label");
  var toggle = root.querySelector(".nutrition-toggle");
  if (!panel || !toggle) return;
  toggle.addEventListener("click", function () {
    var open = toggle.getAttribute("aria-expanded") === "true";
    toggle.setAttribute("aria-expanded", String(!open));
    toggle.textContent = open ? "Show full nutrition label" : "Hide full nutrition label";
    panel.hidden = open;
  });

  var ROWS = [["Total Fat", "total_fat_g", "g", "total_fat"], ["Saturated Fat", "saturated_fat_g", "g", "saturated_fat"],
    ["Cholesterol", "cholesterol_mg", "mg", "cholesterol"], ["Sodium", "sodium_mg", "mg", "sodium"],
    ["Total Carbohydrate", "total_carbohydrate_g", "g", "total_carbohydrate"],
    ["Dietary Fiber", "dietary_fiber_g", "g", "dietary_fiber"], ["Total Sugars", "total_sugars_g", "g", null],
    ["Protein", "protein_g", "g", "protein"], ["Vitamin C", "vitamin_c_mg", "mg", "vitamin_c"],
    ["Calcium", "calcium_mg", "mg", "calcium"], ["Iron", "iron_mg", "mg", "iron"],
    ["Potassium", "potassium_mg", "mg", "potassium"]];

  function render(data) {
    var t = document.createElement("table");
    t.className = "nutrition-full";
    t.setAttribute("aria-label", "Full nutrition label");
    var cap = document.createElement("caption");
    cap.textContent = "Servings per recipe: " + data.servings + " · Calories per serving: " + data.per_serving.calories;
    t.appendChild(cap);
    var head = t.createTHead().insertRow();
    ["Nutrient", "Amount per serving", "% Daily Value *"].forEach(function (h) {
      var th = document.createElement("th");
      th.scope = "col";
      th.textContent = h;
      head.appendChild(th);
    });
    var body = t.createTBody();
    ROWS.forEach(function (r) {
      var tr = body.insertRow();
      var th = document.createElement("th");
      th.scope = "row";
      th.textContent = r[0];
      tr.appendChild(th);
      tr.insertCell().textContent = data.per_serving[r[1]] + r[2];
      tr.insertCell().textContent = r[3] ? data.daily_value_percent[r[3]] + "%" : "";
    });
    panel.replaceChildren(t);
  }

  fetch(panel.getAttribute("data-src"), {headers: {Accept: "application/json"}})
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(render)
    .catch(function () {
      var p = document.createElement("p");
      p.setAttribute("role", "status");
      p.textContent = "The full nutrition label is not available right now.";
      panel.replaceChildren(p);
    });
})();
