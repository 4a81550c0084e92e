// Northwind Outfitters product page script: the in-store stock check (GET api/stock/<sku> when the page loads;
// the page already says "In stock" online, the check only adds the stores) and the legacy global helper
// window.estimateDelivery(postcode), kept for the old quick-view widget; the page itself never calls it. Under
// the busy_script mutation (#store-stock[data-busy-ms]) the helper blocks synchronously for that many
// milliseconds before it answers (a loop of blockingCall, as Staybook's hotel.js). No timers.
(function () {
  "use strict";
  var status = document.getElementById("store-stock");
  if (!status) return;
  var busyMs = parseInt(status.getAttribute("data-busy-ms") || "0", 10);

  // blockingCall is one synchronous request to api/busy-tick (answered after 100 ms): the main thread waits in
  // it without running, and V8 can terminate the loop when it returns. A call that fails or is answered early
  // waits out the rest of its 100 ms on the clock, so the loop makes at most ten requests a second.
  function blockingCall() {
    var t0 = Date.now(), x = new XMLHttpRequest();
    try { x.open("GET", "api/busy-tick", false); x.send(); } catch (e) { /* go on */ }
    while (Date.now() - t0 < 100) { /* the tick's rest */ }
  }

  // The delivery estimate of each shipping method (the server's table, #store-stock[data-delivery]) for a
  // postcode: the same for every postcode the store ships to.
  window.estimateDelivery = function (postcode) {
    if (busyMs > 0) {
      var end = Date.now() + busyMs;
      while (Date.now() < end) { blockingCall(); /* re-query the carrier table (legacy) */ }
    }
    var methods = [];
    try { methods = JSON.parse(status.getAttribute("data-delivery") || "[]"); } catch (e) { methods = []; }
    return {postcode: String(postcode || ""), methods: methods};
  };

  fetch(status.getAttribute("data-src"), {headers: {Accept: "application/json"}})
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(function (d) {
      var n = d.stores.filter(function (s) { return s.available; }).length;
      status.textContent = "Available in " + n + " of " + d.stores.length + " stores near you";
    })
    .catch(function () { status.textContent = "Store availability is not available right now."; });
})();
