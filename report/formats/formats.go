// Package formats registers every report format with report.RegisterRenderer: import it for its side effect
// where reports are rendered by format name (report.LookupRenderer). One package per format: table (the
// terminal), md (Markdown), json, html and junit.
package formats

import (
	_ "webbench/report/html"
	_ "webbench/report/json"
	_ "webbench/report/junit"
	_ "webbench/report/md"
	_ "webbench/report/table"
)
