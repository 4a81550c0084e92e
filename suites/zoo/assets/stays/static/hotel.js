// Staybook property page script: the live price check (GET api/price-check/<slug>?… when the page loads;
// the prices are already in the page, the check only confirms them) and the legacy global helper
// window.recalculateStayPrice(room, nights, adults), kept for the mobile app's web view; the page itself never
// calls it. Under the busy_script mutation (article[data-busy-ms]) the helper blocks synchronously for that
// many milliseconds before it computes (a loop of blockingCall). No timers.
(function () {
  "use strict";
  var root = document.getElementById("hotel");
  if (!root) return;
  var base = parseInt(root.getAttribute("data-base"), 10) || 0;
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

  // Same formula as the server: base × mult/100 × nights × (1 + 0.15 per adult beyond two), rounded.
  window.recalculateStayPrice = function (room, nights, adults) {
    if (busyMs > 0) {
      var end = Date.now() + busyMs;
      while (Date.now() < end) { blockingCall(); /* re-rate every night of the stay (legacy) */ }
    }
    nights = Number(nights) || parseInt(root.getAttribute("data-nights"), 10) || 1;
    adults = Number(adults) || parseInt(root.getAttribute("data-adults"), 10) || 2;
    var rows = Array.prototype.slice.call(document.querySelectorAll("table.rooms tr[data-room]"));
    var row = rows.filter(function (r) { return r.getAttribute("data-room") === room; })[0] || rows[0];
    var mult = row ? parseInt(row.getAttribute("data-mult"), 10) : 100;
    var x = base * mult * nights * (100 + 15 * Math.max(0, adults - 2));
    return {room: row ? row.getAttribute("data-room") : room, nights: nights, adults: adults,
      total: Math.floor((x + 5000) / 10000), currency: "EUR"};
  };

  var status = document.querySelector(".price-check[data-src]");
  if (!status) return;
  fetch(status.getAttribute("data-src"), {headers: {Accept: "application/json"}})
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(function (d) {
      var low = Math.min.apply(null, d.rooms.map(function (x) { return x.total; }));
      status.textContent = "Prices confirmed: from € " + low.toLocaleString("en-GB") + " for " + d.nights +
        (d.nights === 1 ? " night" : " nights");
    })
    .catch(function () { status.textContent = "We couldn't confirm the latest prices. The prices shown may change."; });
})();
