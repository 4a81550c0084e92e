package html

// Links and notes the attempt and pair pages share.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// shotNote describes the steps with a kept screenshot as ranges, e.g. "screenshots kept for steps 3, 12–26"
// (the browser session keeps only the last few, browser.KeepScreenshots).
func shotNote(steps []int) string {
	u := slices.Compact(slices.Sorted(slices.Values(steps)))
	var parts []string
	for i := 0; i < len(u); {
		j := i
		for j+1 < len(u) && u[j+1] == u[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", u[i], u[j]))
		} else {
			parts = append(parts, fmt.Sprint(u[i]))
		}
		i = j + 1
	}
	word := "steps"
	if len(u) == 1 {
		word = "step"
	}
	return "screenshots kept for " + word + " " + strings.Join(parts, ", ")
}

// relLink returns the slash-separated relative path from directory from to
// target, or target itself when no relative path exists.
func relLink(from, target string) string {
	af, err1 := filepath.Abs(from)
	at, err2 := filepath.Abs(target)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(af, at); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(target)
}
