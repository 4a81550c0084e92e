package zoo

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
)

// Mutation late_hydration on a server-rendered app (shop, stays): the page is delivered as a client-rendered
// shell, as a single-page app's search results are (the seeds' SPA pages, seed 002). The response body is a
// loading screen — a generic wrapper around the brand's logo image, no interactive element — and the page's
// real markup travels inert in a <template>; the shell's script puts it in place after the page's load event,
// lateHydration's delay later (hydrationDelay), re-creating its scripts so that they run as on a normal load.
// Until then an AI snapshot is `generic > img "<brand>"`, which snapshot_ready waits past and an agent without it
// gives up on. Each full load of a page served this way shows the shell; chat, code and news do the same in their
// own clients (chat.js, code.js, news app.js), from the same rule.

// hydrationDelay is the rule for late_hydration's render delay (ZOO.md), after the page's load event:
// LoadFactor times the page's own load time — performance.now() at its load event, the milliseconds from the
// start of its navigation (https://w3c.github.io/hr-time/#dfn-time-origin) — at least MinMS and at most MaxMS.
// The delay runs from the load event, and grows with the load's time, because what decides whether an agent
// meets the shell is its first snapshot after the load, which a busy machine delays as it delays the load
// itself: a fixed delay let an agent's late first snapshot on a loaded machine find the page rendered, and the
// guard's absence go unseen. A client-rendered app's start-up is script work that a slow machine slows as it
// slows the load, so a render that follows the load's pace is what such a page does. The zero value renders at once.
type hydrationDelay struct{ MinMS, LoadFactor, MaxMS int }

// lateHydration is the delay of every app that implements late_hydration: 2 s on a quick load (under 0.5 s),
// 4 × the load time on a slower one, at most 8 s (snapshot_ready waits up to 10 s for the page: agent/guard).
var lateHydration = hydrationDelay{MinMS: 2000, LoadFactor: 4, MaxMS: 8000}

// Attrs is the rule as the body attributes that the apps' scripts read (data-hydration-delay-ms: MinMS, 0 =
// render at once; data-hydration-load-factor; data-hydration-max-ms).
func (h hydrationDelay) Attrs() template.HTMLAttr {
	return template.HTMLAttr(fmt.Sprintf(`data-hydration-delay-ms="%d" data-hydration-load-factor="%d" `+
		`data-hydration-max-ms="%d"`, h.MinMS, h.LoadFactor, h.MaxMS))
}

// hydrationShell is inserted after <body …>: the loading screen, then the page's body markup as an inert
// template, then the script that renders it. %s: logo src, logo alt, the body markup; %d: lateHydration's MaxMS,
// MinMS and LoadFactor.
const hydrationShell = `<div class="zoo-loading" style="display:flex;align-items:center;justify-content:center;` +
	`min-height:60vh"><img src="%s" alt="%s" width="64" height="64"></div>` +
	`<template id="zoo-app">%s</template>` +
	`<script>(function () {
  "use strict";
  function render() {
    var tpl = document.getElementById("zoo-app"), shell = document.querySelector(".zoo-loading");
    var frag = document.importNode(tpl.content, true);
    frag.querySelectorAll("script").forEach(function (old) {
      var s = document.createElement("script");
      for (var i = 0; i < old.attributes.length; i++) s.setAttribute(old.attributes[i].name, old.attributes[i].value);
      s.async = false;
      s.text = old.text;
      old.replaceWith(s);
    });
    shell.remove();
    tpl.replaceWith(frag);
  }
  function later() { setTimeout(render, Math.min(%d, Math.max(%d, %d * performance.now()))); }
  if (document.readyState === "complete") later(); else window.addEventListener("load", later, { once: true });
})();</script>`

// renderHydrated renders template name with data like RenderPage, delivered as a late-hydrating shell: the
// markup between <body …> and </body> goes into the shell's template, and the loading screen shows the image
// logo with the accessible name alt. A page without a body element is a template bug: a 500.
func renderHydrated(w http.ResponseWriter, tpl *template.Template, name string, status int, data any, logo,
	alt string) {
	var buf bytes.Buffer
	if err := tpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "template "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	page := buf.Bytes()
	open := bytes.Index(page, []byte("<body"))
	end := bytes.LastIndex(page, []byte("</body>"))
	if open < 0 || end < open {
		http.Error(w, "template "+name+": no body element", http.StatusInternalServerError)
		return
	}
	start := open + bytes.IndexByte(page[open:], '>') + 1
	var out bytes.Buffer
	out.Write(page[:start])
	fmt.Fprintf(&out, hydrationShell, template.HTMLEscapeString(logo), template.HTMLEscapeString(alt),
		page[start:end], lateHydration.MaxMS, lateHydration.MinMS, lateHydration.LoadFactor)
	out.Write(page[end:])
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(out.Bytes())
}
