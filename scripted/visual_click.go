package scripted

import (
	"math"
	"strconv"

	"webbench/browser"
	"webbench/suites"
)

// visualClick plays the nameless-control sequence of ZOO.md / seed 004:
//
//	(1) two clicks on guessed refs (both fail) and a snapshot with boxes;
//	(2) a snapshot with boxes, one more failed guess, and a browser_mouse_click_xy at the target's box centre
//	    (from the boxes seen in (1): a model cannot read a result inside the message that asks for it);
//	(3) a failed verification guess and a snapshot; then the plan goes on.
func (c *conv) visualClick(st *suites.Step, pr *progress) reply {
	if c.snapshot == nil || st.Target == nil {
		return c.lookAgain("could not find " + targetDesc(st.Target) + " on the page")
	}
	n := c.snapshot.find(st.Target, false)
	if n == nil {
		return c.lookAgain("could not find " + targetDesc(st.Target) + " on the page")
	}
	desc := vcDesc(st.Target)
	used := map[string]bool{}
	for _, g := range pr.vcGuesses {
		used[g] = true
	}
	guess := func() toolCall {
		g := c.guessRef(n.ref, used)
		used[g] = true
		return toolCall{browser.ToolClick, map[string]any{"target": g, "element": desc}}
	}
	boxes := toolCall{browser.ToolSnapshot, map[string]any{"boxes": true}}
	switch {
	case pr.vcMsgs == 0:
		return c.calls(guess(), guess(), boxes)
	case !pr.vcMouse:
		if n.box == nil {
			if pr.vcMsgs >= maxEmptyLooks {
				return c.final(finalAnswer{OK: false, Page: c.pageURL,
					Error: strp("could not locate " + targetDesc(st.Target) + " on screen")})
			}
			return c.calls(boxes, guess())
		}
		x := math.Round(n.box[0] + n.box[2]/2)
		y := math.Round(n.box[1] + n.box[3]/2)
		return c.calls(boxes, guess(), toolCall{browser.ToolMouseClickXY, map[string]any{"x": x, "y": y}})
	default:
		return c.calls(guess(), toolCall{browser.ToolSnapshot, map[string]any{}})
	}
}

// guessRef invents a near-miss ref for the visual-click sequence: a digit typo of the real ref (e11 → e110,
// e111 …), else a number past the snapshot's; never a ref present in the latest snapshot or used before.
func (c *conv) guessRef(real string, used map[string]bool) string {
	present := c.snapshot.refs()
	prefix, num := "e", 0
	if p, n, ok := browser.SplitRef(real); ok {
		prefix, num = p, n
	}
	free := func(r string) bool { return !present[r] && !used[r] }
	for d := 0; d < 10; d++ {
		if r := prefix + strconv.Itoa(num*10+d); num > 0 && free(r) {
			return r
		}
	}
	max := 0
	for r := range present {
		if _, k, ok := browser.SplitRef(r); ok && k > max {
			max = k
		}
	}
	for k := max + 1; ; k++ {
		if r := prefix + strconv.Itoa(k); free(r) {
			return r
		}
	}
}
