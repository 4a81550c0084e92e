package agent

import "webbench/browser"

// sessionOf is the tool backend's *browser.Session, or nil when it is another backend.
func sessionOf(t browser.Backend) *browser.Session {
	s, _ := t.(*browser.Session)
	return s
}
