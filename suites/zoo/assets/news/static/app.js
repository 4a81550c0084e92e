// Meridian News client-rendered views (app.html): the search results and the football scoreboard. The server
// embeds the view's data in body[data-app] (JSON), so the first render needs no request; it runs at once, or
// after the load event (late_hydration: body[data-hydration-*], hydrationDelay below) — until then the page is the
// loading shell alone. The masthead and footer come from the page's <template>s; everything else is built
// here with textContent (no HTML from data).
(function () {
  "use strict";
  var body = document.body;
  var data = JSON.parse(body.getAttribute("data-app") || "{}");
  var delay = parseInt(body.getAttribute("data-hydration-delay-ms") || "0", 10) || 0;
  // late_hydration: the delay after the load event (data-hydration-*: hydration.go hydrationDelay): load-factor times the
  // page's load time (performance.now() at the load event), at least delay-ms, at most max-ms.
  function hydrationDelay() {
    var attr = function (n) { return parseInt(body.getAttribute("data-hydration-" + n) || "0", 10) || 0; };
    return Math.min(attr("max-ms"), Math.max(delay, attr("load-factor") * performance.now()));
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function searchView(main) {
    main.appendChild(el("h1", { "class": "section-title" }, "Search results for \u201c" + data.query + "\u201d"));
    var res = data.results || [];
    if (res.length === 0) {
      main.appendChild(el("p", { "class": "no-results" }, "Sorry, there are no results for \u201c" + data.query + "\u201d."));
      return;
    }
    main.appendChild(el("p", { "class": "result-count" }, res.length === 1 ? "1 result" : res.length + " results"));
    var ul = el("ul", { "class": "results", "aria-label": "Search results" });
    res.forEach(function (r) {
      var li = el("li"), art = el("article", { "class": "story" });
      var h = el("h2", { "class": "story-title" });
      h.appendChild(el("a", { href: r.href }, r.headline));
      art.appendChild(h);
      art.appendChild(el("p", { "class": "story-summary" }, r.standfirst));
      var meta = el("p", { "class": "story-meta" });
      meta.appendChild(el("time", { datetime: r.datetime }, r.date));
      meta.appendChild(document.createTextNode(" "));
      meta.appendChild(el("span", { "class": "story-section" }, r.section));
      art.appendChild(meta);
      li.appendChild(art);
      ul.appendChild(li);
    });
    main.appendChild(ul);
  }

  function scoresView(main) {
    main.appendChild(el("h1", { "class": "section-title" }, "Football scores and fixtures"));
    (data.days || []).forEach(function (d, i) {
      var sec = el("section", { "class": "score-day", "aria-labelledby": "day-" + i });
      var h = el("h2", { id: "day-" + i, "class": "block-title" }, d.competition + ", " + d.date);
      sec.appendChild(h);
      var ul = el("ul", { "class": "score-list" });
      d.matches.forEach(function (m) {
        var a = el("a", { href: m.href, "aria-label": m.label, "class": "score-card" });
        a.appendChild(el("span", { "class": "team" }, m.home));
        a.appendChild(el("span", { "class": "score" }, m.home_goals + " - " + m.away_goals));
        a.appendChild(el("span", { "class": "team" }, m.away));
        a.appendChild(el("span", { "class": "status" }, "FT"));
        var li = el("li");
        li.appendChild(a);
        ul.appendChild(li);
      });
      sec.appendChild(ul);
      main.appendChild(sec);
    });
  }

  function render() {
    var root = document.getElementById("root");
    root.textContent = "";
    root.appendChild(document.getElementById("app-chrome").content.cloneNode(true));
    var main = el("main", { id: "main", "class": "page" });
    if (body.getAttribute("data-view") === "scores") scoresView(main); else searchView(main);
    root.appendChild(main);
    root.appendChild(document.getElementById("app-footer").content.cloneNode(true));
  }

  // The delay runs from the load event (at once when the document has already loaded), not from this
  // script's start: a harness waits for the load before its first snapshot.
  function afterLoad(f) {
    if (document.readyState === "complete") f(); else window.addEventListener("load", f, { once: true });
  }
  if (delay > 0) afterLoad(function () { setTimeout(render, hydrationDelay()); }); else render();
})();
