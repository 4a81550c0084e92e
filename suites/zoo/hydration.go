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
// real markup travels inert in a <template>; the shell's script puts it in place exactly lateHydrationDelayMS
// after the page's load event (a fixed setTimeout, no jitter), re-creating its scripts so that they run as on a
// normal load. The delay runs from the load event, not from the script's start, because an agent's harness
// waits for the load before its first snapshot: on a loaded machine a slow load (the logo, the styles) delays
// the render and that snapshot alike, and the snapshot still meets the shell. Until then an AI snapshot is `generic > img "<brand>"`, which snapshot_ready re-captures and an agent
// without it gives up on. Each full load of a page served this way shows the shell; chat does the same in its
// own client (chat.go).

// lateHydrationDelayMS is the late_hydration render delay in milliseconds (ZOO.md: 2.0 s, fixed), for every
// app that implements the mutation.
const lateHydrationDelayMS = 2000

// hydrationShell is inserted after <body …>: the loading screen, then the page's body markup as an inert
// template, then the script that renders it. %s: logo src, logo alt, the body markup; %d: the delay.
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
  function later() { setTimeout(render, %d); }
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
		page[start:end], lateHydrationDelayMS)
	out.Write(page[end:])
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(out.Bytes())
}
