// Meridian News page script: the search panel (opened over the page by "Search Meridian", closed by its
// backdrop, "Close search" or Escape), the Following page's switches (each keeps a hidden form field in step),
// and the panels that load after the page: a match's stats (api/live/{id}) and an article's comment count
// (api/comments/{id}). Handlers are delegated from the document, so the client-rendered pages (app.js) get
// them for the masthead they render. Under busy_script the match page also has the legacy helper
// window.recalculateWinProbability, which blocks the tab (see blockingCall); the page never calls it.
(function () {
  "use strict";

  function panel() { return document.getElementById("search-panel"); }
  function openSearch(toggle) {
    var p = panel();
    if (!p) return;
    p.hidden = false;
    if (toggle) toggle.setAttribute("aria-expanded", "true");
    var input = p.querySelector("input[type=search]");
    if (input) input.focus();
  }
  function closeSearch() {
    var p = panel();
    if (!p || p.hidden) return;
    p.hidden = true;
    var t = document.querySelector(".search-toggle");
    if (t) { t.setAttribute("aria-expanded", "false"); t.focus(); }
  }

  document.addEventListener("click", function (e) {
    var el = e.target instanceof Element ? e.target : null;
    if (!el) return;
    var toggle = el.closest(".search-toggle");
    if (toggle) { openSearch(toggle); return; }
    if (el.closest("[data-close-search]")) { closeSearch(); return; }
    var sw = el.closest("[role=switch][data-field]");
    if (sw) {
      var on = sw.getAttribute("aria-checked") !== "true";
      sw.setAttribute("aria-checked", on ? "true" : "false");
      var field = sw.parentNode.querySelector("input[name='" + sw.getAttribute("data-field") + "']");
      if (field) field.value = on ? "on" : "off";
    }
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") closeSearch(); });

  function getJSON(url, ok, fail) {
    fetch(url, { headers: { "Accept": "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(ok, fail);
  }

  var stats = document.querySelector("[data-live]");
  if (stats) {
    var status = stats.querySelector(".stats-status"), list = stats.querySelector(".stats-list");
    getJSON("api/live/" + stats.getAttribute("data-live"), function (d) {
      [["Possession", d.possession[0] + "% - " + d.possession[1] + "%"], ["Shots", d.shots[0] + " - " + d.shots[1]],
        ["Corners", d.corners[0] + " - " + d.corners[1]]].forEach(function (row) {
        var dt = document.createElement("dt"), dd = document.createElement("dd");
        dt.textContent = row[0];
        dd.textContent = row[1];
        list.appendChild(dt);
        list.appendChild(dd);
      });
      list.hidden = false;
      status.textContent = d.status;
    }, function () { status.textContent = "Stats are not available right now."; });

    var busyMs = parseInt(stats.getAttribute("data-busy-ms") || "0", 10);
    // blockingCall is one synchronous request, as legacy code makes them: api/busy-tick answers after 100 ms
    // (Zoo BusyTick), so the loop below holds the tab without taking a core; a call that fails or is answered
    // early waits out the rest of its 100 ms on the clock.
    var blockingCall = function () {
      var t0 = Date.now();
      var x = new XMLHttpRequest();
      try { x.open("GET", "api/busy-tick", false); x.send(); } catch (e) { /* go on */ }
      while (Date.now() - t0 < 100) { /* the tick's rest */ }
    };
    window.recalculateWinProbability = function () {
      if (busyMs > 0) {
        var end = Date.now() + busyMs;
        while (Date.now() < end) { blockingCall(); /* replays every minute of the match (legacy) */ }
      }
      var goals = document.querySelector(".match-title").textContent.match(/(\d+)-(\d+)/);
      var h = Number(goals[1]), a = Number(goals[2]);
      return { home: h > a ? 100 : h === a ? 50 : 0, away: a > h ? 100 : h === a ? 50 : 0 };
    };
  }

  var comments = document.querySelector("[data-comments]");
  if (comments) {
    var count = comments.querySelector(".comments-count");
    getJSON("api/comments/" + comments.getAttribute("data-comments"), function (d) {
      count.textContent = d.count + " comments";
    }, function () { count.textContent = "Comments are not available right now."; });
  }
})();
