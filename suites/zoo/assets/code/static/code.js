// Gitlane page script: mounting the app under late_hydration, client-side navigation between a repository's
// tabs (as GitHub's Turbo: fetch with X-PJAX, swap #repo-content, history.pushState), the settings switches,
// the "Edit labels" menu, the Contributors box (loaded from the contributors API) and the legacy global
// window.computeLanguageBreakdown() kept for embeds. Every handler is delegated from the document, so content
// swapped in by a navigation (or re-rendered by churn.js) needs no set-up. Deterministic: the only timer is the
// hydration delay.
(function () {
  "use strict";
  var body = document.body;
  var busyMs = parseInt(body.getAttribute("data-busy-ms") || "0", 10) || 0;

  // Contributors: the API's list, or "Loading…" for as long as it does not answer.
  function loadContributors() {
    var box = document.getElementById("contributors");
    if (!box || box.getAttribute("data-loaded")) return;
    box.setAttribute("data-loaded", "pending");
    fetch(box.getAttribute("data-src"), { headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (list) {
        var ul = document.createElement("ul");
        ul.setAttribute("aria-label", "Contributors");
        list.forEach(function (c) {
          var li = document.createElement("li");
          li.textContent = c.login + " · " + c.contributions + " commits";
          ul.appendChild(li);
        });
        box.replaceChildren(ul);
      })
      .catch(function () { box.textContent = "Contributors could not be loaded."; });
  }

  // blockingCall is one synchronous request (api/busy-tick answers after 100 ms): the main thread waits in it
  // without running, so a loop of them holds the tab as a busy loop would without taking a core; a call that
  // fails or is answered early waits out the rest of its 100 ms on the clock (recipes' recipe.js does the same).
  function blockingCall() {
    var t0 = Date.now(), x = new XMLHttpRequest();
    try { x.open("GET", "api/busy-tick", false); x.send(); } catch (e) { /* go on */ }
    while (Date.now() - t0 < 100) { /* the tick's rest */ }
  }
  window.computeLanguageBreakdown = function () {
    if (busyMs > 0) {
      var end = Date.now() + busyMs;
      while (Date.now() < end) { blockingCall(); }
    }
    var out = {};
    document.querySelectorAll(".languages li").forEach(function (li) {
      var m = /^(.*) ([\d.]+)%$/.exec(li.textContent.trim());
      if (m) out[m[1]] = parseFloat(m[2]);
    });
    return out;
  };

  function setTab(tab) {
    document.querySelectorAll(".repo-tabs a[data-tab]").forEach(function (a) {
      if (a.getAttribute("data-tab") === tab) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    });
  }

  // navigate follows a data-pjax link without a page load; a page without #repo-content (the organisation)
  // loads the link as usual.
  function navigate(href) {
    var content = document.getElementById("repo-content");
    if (!content) { window.location.href = href; return; }
    fetch(href, { headers: { "X-PJAX": "true" } }).then(function (r) {
      return r.text().then(function (html) {
        content.innerHTML = html;
        document.querySelectorAll(".flash[role=status]").forEach(function (f) { f.remove(); });
        if (r.headers.get("X-Page-Title")) document.title = r.headers.get("X-Page-Title");
        setTab(r.headers.get("X-Tab") || "");
        history.pushState({ pjax: true }, "", href);
        window.scrollTo(0, 0);
        loadContributors();
      });
    }).catch(function () { window.location.href = href; });
  }

  document.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    var sw = e.target.closest('button[role="switch"]');
    if (sw) {
      e.preventDefault();
      var on = sw.getAttribute("aria-checked") !== "true";
      sw.setAttribute("aria-checked", on ? "true" : "false");
      var input = sw.closest(".switch-field").querySelector('input[type="hidden"]');
      if (input) input.value = on ? "true" : "false";
      return;
    }
    var toggler = e.target.closest("[data-toggle]");
    if (toggler) {
      var menu = document.getElementById(toggler.getAttribute("data-toggle"));
      var open = toggler.getAttribute("aria-expanded") !== "true";
      toggler.setAttribute("aria-expanded", open ? "true" : "false");
      if (menu) menu.hidden = !open;
      return;
    }
    var a = e.target.closest("a[data-pjax]");
    if (a) {
      e.preventDefault();
      navigate(a.href);
    }
  });
  window.addEventListener("popstate", function () { window.location.reload(); });

  function start() { loadContributors(); }

  // late_hydration: the markup waits in <template id="app"> behind the loading mark for the delay after the load event (data-hydration-*: hydration.go hydrationDelay): load-factor times the
  // page's load time (performance.now() at the load event), at least delay-ms, at most max-ms.
  var delay = parseInt(body.getAttribute("data-hydration-delay-ms") || "0", 10) || 0;
  function hydrationDelay() {
    var attr = function (n) { return parseInt(body.getAttribute("data-hydration-" + n) || "0", 10) || 0; };
    return Math.min(attr("max-ms"), Math.max(delay, attr("load-factor") * performance.now()));
  }
  var tpl = document.getElementById("app");
  // The delay runs from the load event (at once when the document has already loaded), not from this
  // script's start: a harness waits for the load before its first snapshot.
  function afterLoad(f) {
    if (document.readyState === "complete") f(); else window.addEventListener("load", f, { once: true });
  }
  if (tpl && delay > 0) {
    afterLoad(function () {
      setTimeout(function () {
        var boot = document.getElementById("boot");
        tpl.replaceWith(tpl.content.cloneNode(true));
        if (boot) boot.remove();
        start();
      }, hydrationDelay());
    });
  } else {
    start();
  }
})();
