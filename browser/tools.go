package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	playwright "github.com/mxschmitt/playwright-go"
	openai "github.com/sashabaranov/go-openai"
)

// ToolName is a browser tool's name as the model sees it (Playwright MCP's, DESIGN.md "Browser tools").
type ToolName string

// Tool names, in the order ToolDefs lists them.
const (
	ToolNavigate       ToolName = "browser_navigate"
	ToolNavigateBack   ToolName = "browser_navigate_back"
	ToolSnapshot       ToolName = "browser_snapshot"
	ToolClick          ToolName = "browser_click"
	ToolType           ToolName = "browser_type"
	ToolHover          ToolName = "browser_hover"
	ToolSelectOption   ToolName = "browser_select_option"
	ToolFillForm       ToolName = "browser_fill_form"
	ToolPressKey       ToolName = "browser_press_key"
	ToolEvaluate       ToolName = "browser_evaluate"
	ToolWaitFor        ToolName = "browser_wait_for"
	ToolTakeScreenshot ToolName = "browser_take_screenshot"
	ToolMouseClickXY   ToolName = "browser_mouse_click_xy"
)

// BaseName strips an MCP-style prefix from a tool name as a model sent it
// ("mcp__playwright__browser_click" → ToolClick).
func BaseName(name string) ToolName {
	if i := strings.LastIndex(name, "__"); i >= 0 {
		return ToolName(name[i+2:])
	}
	return ToolName(name)
}

// Tool is one browser tool, defined once: the tool list and the JSON schemas sent to the model (ToolDefs), the
// argument type its JSON arguments decode into, its handler (Session.Call) and how the loop and guards treat
// it all come from this value.
type Tool struct {
	Name ToolName
	// Description is the text sent to the model (Playwright MCP's words).
	Description string
	// Schema is the JSON schema of the arguments, generated from Args (argSchema): an object whose properties are
	// Args' json names.
	Schema *jsonschema.Schema
	// Args is the Go type the JSON arguments decode into (a struct; empty for tools without arguments).
	Args reflect.Type
	// ReadOnly tools only read the page: no input, no navigation, no page script.
	ReadOnly bool
	// Acts marks the tools that act on the page as a user does (input, navigation). It describes the handler,
	// it does not drive it: each such handler validates its arguments and then runs the action through
	// Session.act, which lets the page settle and, on success, returns the settled page's snapshot. Readers of
	// the flag: the intercept_hint guard (an action after its hint).
	Acts bool
	// Progress marks the tools whose successful call counts as a browser action for the stall detector
	// (DESIGN.md "Iteration and stall"). browser_mouse_click_xy acts but is deliberately not progress: it counts
	// only through the visual_progress guard.
	Progress bool

	// params is Schema's JSON value, the parameters ToolDefs sends.
	params map[string]any
	// offered reports whether a session with these options offers the tool (nil: always).
	offered func(SessionOptions) bool
	// run decodes the arguments and runs the tool synchronously.
	run func(s *Session, args json.RawMessage) Result
}

// toolKind sets a definition's ReadOnly, Acts and Progress flags.
type toolKind int

const (
	kindRead    toolKind = iota // reads the page
	kindScript                  // runs page script (browser_evaluate): neither read-only nor an action
	kindAction                  // acts on the page and counts as progress
	kindPointer                 // acts on the page, progress only through visual_progress
)

// def builds a Tool whose arguments decode into an A, its schema generated from A.
func def[A any](name ToolName, kind toolKind, desc string, run func(s *Session, a *A) Result) Tool {
	sch, params := argSchema[A]()
	return Tool{Name: name, Description: desc, Schema: sch, params: params, Args: reflect.TypeFor[A](),
		ReadOnly: kind == kindRead, Acts: kind == kindAction || kind == kindPointer, Progress: kind == kindAction,
		run: func(s *Session, args json.RawMessage) Result {
			var a A
			if _, none := any(a).(noArgs); !none {
				if err := decode(name, args, &a); err != nil {
					return Result{Error: err.Error()}
				}
			}
			return run(s, &a)
		}}
}

// maxWait caps browser_wait_for's time argument, as Playwright MCP does.
const maxWait = 30 * time.Second

// tools is the table of browser tools in the order ToolDefs lists them; descriptions follow Playwright MCP. The
// argument types, whose struct tags make the schemas, are in toolargs.go.
var tools = []Tool{
	def(ToolNavigate, kindAction, "Navigate to a URL", (*Session).navigateTool),
	def(ToolNavigateBack, kindAction, "Go back to the previous page in the history",
		func(s *Session, _ *noArgs) Result { return s.back() }),
	def(ToolSnapshot, kindRead, "Capture accessibility snapshot of the current page, this is better than screenshot",
		(*Session).snapshotTool),
	def(ToolClick, kindAction, "Perform click on a web page", (*Session).click),
	def(ToolType, kindAction, "Type text into editable element", (*Session).typeText),
	def(ToolHover, kindAction, "Hover over element on page", func(s *Session, a *targetArgs) Result {
		return s.onTarget(ToolHover, a.Target, func(loc playwright.Locator) error { return loc.Hover() })
	}),
	def(ToolSelectOption, kindAction, "Select an option in a dropdown", (*Session).selectOption),
	def(ToolFillForm, kindAction, "Fill multiple form fields", func(s *Session, a *fillFormArgs) Result {
		if len(a.Fields) == 0 {
			return missing(ToolFillForm, "fields")
		}
		return s.fillForm(ToolFillForm, a.Fields)
	}),
	def(ToolPressKey, kindAction, "Press a key on the keyboard", func(s *Session, a *pressKeyArgs) Result {
		if a.Key == "" {
			return missing(ToolPressKey, "key")
		}
		return s.act(func() error { return s.cur().Keyboard().Press(a.Key) })
	}),
	withOffer(def(ToolEvaluate, kindScript, "Evaluate JavaScript expression on page or element",
		func(s *Session, a *evaluateArgs) Result {
			if strings.TrimSpace(a.Function) == "" {
				return missing(ToolEvaluate, "function")
			}
			return s.evaluate(*a)
		}), func(o SessionOptions) bool { return !o.DisableEvaluate }),
	def(ToolWaitFor, kindRead, "Wait for text to appear or disappear or a specified time to pass",
		func(s *Session, a *waitForArgs) Result { return s.waitFor(*a) }),
	def(ToolTakeScreenshot, kindRead, "Take a screenshot of the current page. You can't perform actions based on "+
		"the screenshot, use browser_snapshot for actions.",
		func(s *Session, _ *noArgs) Result {
			img, err := s.Screenshot()
			if err != nil {
				return Result{Error: err.Error()}
			}
			return Result{Result: "Took a screenshot of the viewport (PNG).", Image: img}
		}),
	def(ToolMouseClickXY, kindPointer, "Click left mouse button at a given position (viewport CSS pixels, e.g. the "+
		"centre of a [box=…] from browser_snapshot with boxes: true)", func(s *Session, a *xyArgs) Result {
		if a.X == nil {
			return missing(ToolMouseClickXY, "x")
		}
		if a.Y == nil {
			return missing(ToolMouseClickXY, "y")
		}
		return s.act(func() error { return s.cur().Mouse().Click(*a.X, *a.Y) })
	}),
}

// withOffer sets a definition's offered predicate.
func withOffer(t Tool, offered func(SessionOptions) bool) Tool {
	t.offered = offered
	return t
}

// Tools returns the tool table, in ToolDefs order (a copy; the schemas are shared and must not be modified).
func Tools() []Tool { return slices.Clone(tools) }

// LookupTool returns the definition of a tool by name (an MCP prefix is stripped); ok is false for an unknown
// tool.
func LookupTool(name string) (Tool, bool) {
	base := BaseName(name)
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == base })
	if i < 0 {
		return Tool{}, false
	}
	return tools[i], true
}

// ToolDefs returns the OpenAI tool definitions (JSON schema) of the tools the session offers, from the tool
// table: all of them, except browser_evaluate when DisableEvaluate.
func (s *Session) ToolDefs() []openai.Tool {
	var out []openai.Tool
	for _, t := range tools {
		if t.offered != nil && !t.offered(s.opts) {
			continue
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: string(t.Name), Description: t.Description, Parameters: t.params,
		}})
	}
	return out
}

// Call executes one tool by name with its JSON arguments and returns the structured result. Unknown tools and
// bad arguments are results with Error set, not Go errors. ctx cancellation returns at once with an error
// result (the underlying Playwright call may still be running; closing the session releases it).
//
// name may carry an MCP prefix ("mcp__playwright__browser_click"). Tools that act (Tool.Acts; their handlers
// call Session.act) let the page settle and return Page + a fresh Snapshot (Observe, so the snapshot filter runs); browser_snapshot returns
// Page + Snapshot; the reading tools return Result + Page; browser_take_screenshot also Image. Errors are
// Playwright's text verbatim (with its call log); element tools fail at once with StaleRefMessage for a ref not
// in the last snapshot or whose node is gone. Events collected since the previous call are attached.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) Result {
	tool := BaseName(name)
	if err := ctx.Err(); err != nil {
		return Result{Error: fmt.Sprintf("browser: %s cancelled: %v", tool, err)}
	}
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- Result{Error: fmt.Sprintf("browser: %s panicked: %v", tool, p)}
			}
		}()
		done <- s.call(tool, args)
	}()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		r := Result{Error: fmt.Sprintf("browser: %s cancelled: %v", tool, ctx.Err())}
		if p := s.cur(); p != nil {
			r.URL = p.URL()
		}
		return r
	}
}

// decode unmarshals tool arguments ("" and null mean {}).
func decode(tool ToolName, args json.RawMessage, v any) error {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return nil
	}
	if err := json.Unmarshal(a, v); err != nil {
		return fmt.Errorf("Invalid arguments for %s: %v", tool, err)
	}
	return nil
}

func missing(tool ToolName, field string) Result {
	return Result{Error: fmt.Sprintf("Invalid arguments for %s: %q is required", tool, field)}
}

// call runs a tool synchronously and adds Page and Events to its result.
func (s *Session) call(tool ToolName, args json.RawMessage) Result {
	s.mu.Lock()
	closed := s.closed
	s.title = nil
	s.mu.Unlock()
	if closed {
		return Result{Error: errClosed.Error()}
	}
	return s.finish(s.run(tool, args))
}

// run runs a tool of the table synchronously.
func (s *Session) run(tool ToolName, args json.RawMessage) Result {
	t, ok := LookupTool(string(tool))
	if !ok {
		return Result{Error: fmt.Sprintf("Tool %q not found", tool)}
	}
	if t.offered != nil && !t.offered(s.opts) {
		return Result{Error: fmt.Sprintf("Tool %q is disabled in this session", tool)}
	}
	return t.run(s, args)
}

func (s *Session) navigateTool(a *navigateArgs) Result {
	if a.URL == "" {
		return missing(ToolNavigate, "url")
	}
	return s.act(func() error { return s.Navigate(a.URL) })
}

func (s *Session) back() Result {
	return s.act(func() error {
		_, err := s.cur().GoBack(playwright.PageGoBackOptions{
			Timeout: playwright.Float(ms(s.opts.NavigationTimeout))})
		return err
	})
}

func (s *Session) snapshotTool(a *snapshotArgs) Result {
	snap, err := s.observeTitled(a.Boxes)
	r := Result{Snapshot: Snapshot{YAML: snap}}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// click clicks the ref's element through the element handle the click probe resolved (detach.go): a node the
// page replaced before the press fails at once as a stale ref (WhyDetached), with no abandoned call left to
// click a node that comes back later; a click that was lost because the page replaced the node between press
// and release (no click event, the page did not act) fails as a stale ref (WhyClickLost). The probe is read
// while the page settles (actChecked): a lost click fails once the page is quiet, a delivered one does not
// wait for the read before its settle. When the probe cannot answer within the action timeout, the click falls
// back to the locator and to "the ref no longer resolves and the URL is unchanged" for a lost click, and
// records ProbeSkipped in r.Harness.
func (s *Session) click(a *clickArgs) Result {
	var skipped string
	r := s.onLocator(ToolClick, a.Target, s.refLocator, func(loc playwright.Locator) (func() error, error) {
		var btn *playwright.MouseButton
		switch a.Button {
		case "", "left":
		case "right":
			btn = playwright.MouseButtonRight
		case "middle":
			btn = playwright.MouseButtonMiddle
		default:
			return nil, fmt.Errorf("Invalid arguments for %s: button must be left, right or middle, not %q",
				ToolClick, a.Button)
		}
		ref, _ := ParseRef(a.Target)
		t0 := time.Now()
		el, read, gone, noProbe := s.clickProbe(loc)
		s.phase(PhaseProbe, t0)
		if gone {
			// The element lookup is the click's count of the ref's node (refLocator): gone when the action
			// starts, as Locator reports it for the other tools.
			return nil, &StaleRefError{Ref: ref}
		}
		p0 := s.cur()
		url0, before := p0.URL(), s.mark()
		t0 = time.Now()
		err := clickOn(el, loc, btn, a.DoubleClick)
		s.phase(PhaseAction, t0)
		if clickDoneWaitingNavigation(err) {
			// Delivered: wait for the navigation's commit within the navigation timeout, as a navigate would
			// (the snapshot cannot be taken while the commit is pending), then settle as after any click.
			s.waitNet(time.Now().Add(s.opts.NavigationTimeout), func() bool { return s.net.commits > before.commits })
			err = nil
		}
		if err != nil {
			if el != nil {
				err = s.withPreview(el, err)
				_ = read() // disarm the probe
			}
			return nil, err
		}
		return func() error {
			out := probeSkipped
			if el != nil {
				out = read()
			}
			switch out {
			case probeLost:
				return &StaleRefError{Ref: ref, Why: WhyClickLost}
			case probeSkipped:
				lost := p0.URL() == url0 && s.nodeGone(loc)
				why := "not armed"
				if !noProbe {
					why = "no answer"
				}
				skipped = fmt.Sprintf("%s (%s within the %v action timeout): ref %s, lost=%t", ProbeSkipped, why,
					s.opts.ActionTimeout, ref, lost)
				if lost {
					return &StaleRefError{Ref: ref, Why: WhyClickLost}
				}
			}
			return nil
		}, nil
	})
	if skipped != "" {
		r.Harness = append(r.Harness, skipped)
	}
	return r
}

// clickOn clicks (double-clicks) el with button btn (nil: left), or loc when el is nil (the probe was skipped).
func clickOn(el playwright.ElementHandle, loc playwright.Locator, btn *playwright.MouseButton, double bool) error {
	switch {
	case el == nil && double && btn == nil:
		// playwright-go v0.6401.0 rejects any LocatorDblclickOptions ("extra field Steps").
		return loc.Dblclick()
	case el == nil && double:
		return loc.Click(playwright.LocatorClickOptions{Button: btn, ClickCount: playwright.Int(2)})
	case el == nil:
		return loc.Click(playwright.LocatorClickOptions{Button: btn})
	case double && btn == nil:
		return el.Dblclick()
	case double:
		return el.Click(playwright.ElementHandleClickOptions{Button: btn, ClickCount: playwright.Int(2)})
	}
	return el.Click(playwright.ElementHandleClickOptions{Button: btn})
}

func (s *Session) typeText(a *typeArgs) Result {
	return s.onTarget(ToolType, a.Target, func(loc playwright.Locator) error {
		if err := loc.Fill(a.Text); err != nil {
			return err
		}
		if a.Submit {
			return loc.Press("Enter")
		}
		return nil
	})
}

func (s *Session) selectOption(a *selectArgs) Result {
	values, err := a.Values.strings()
	if err != nil {
		return Result{Error: fmt.Sprintf("Invalid arguments for %s: values: %v", ToolSelectOption, err)}
	}
	if len(values) == 0 {
		return missing(ToolSelectOption, "values")
	}
	return s.onTarget(ToolSelectOption, a.Target, func(loc playwright.Locator) error {
		_, err := loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &values})
		return err
	})
}

// finish adds Page and Events to r.
func (s *Session) finish(r Result) Result {
	t0 := time.Now()
	r.URL, r.Title = s.resultPageInfo()
	s.phase(PhasePageInfo, t0)
	if ev := s.drainEvents(); len(ev) > 0 {
		r.Events = append(r.Events, ev...)
	}
	return r
}

// act runs an action, lets the page settle and takes the post-action snapshot. A failed action returns its
// error without a snapshot.
func (s *Session) act(f func() error) Result {
	return s.actChecked(func() (func() error, error) { return nil, f() })
}

// actChecked is act for an action whose outcome is known only after a further driver call (the click probe's
// read): f returns that check, which runs while the page settles (its call in flight beside the settle's
// instead of before it). A check error fails the action as an error of f would, without a snapshot.
func (s *Session) actChecked(f func() (check func() error, err error)) Result {
	m := s.mark()
	check, err := f()
	if err != nil {
		return Result{Error: err.Error()}
	}
	var checked chan error
	if check != nil {
		checked = make(chan error, 1)
		go func() { checked <- check() }()
	}
	s.settle(m)
	if checked != nil {
		t0 := time.Now()
		err := <-checked
		s.phase(PhaseCheck, t0)
		if err != nil {
			return Result{Error: err.Error()}
		}
	}
	t0 := time.Now()
	snap, err := s.observeTitled(false)
	s.phase(PhaseSnapshot, t0)
	if err != nil {
		return Result{Error: err.Error()}
	}
	return Result{Snapshot: Snapshot{YAML: snap}}
}

// onTarget resolves target (stale refs fail at once) and runs an action on it; an action whose node the page
// replaced while Playwright waited for it fails as a stale ref too (detachedError).
func (s *Session) onTarget(tool ToolName, target string, f func(playwright.Locator) error) Result {
	return s.onLocator(tool, target, s.Locator, func(loc playwright.Locator) (func() error, error) {
		return nil, f(loc)
	})
}

// onLocator is onTarget with the target resolved by resolve (Locator, or refLocator for an action that checks
// the node itself) and an action that may return a check (actChecked).
func (s *Session) onLocator(tool ToolName, target string, resolve func(string) (playwright.Locator, error),
	f func(playwright.Locator) (func() error, error)) Result {
	if strings.TrimSpace(target) == "" {
		return missing(tool, "target")
	}
	loc, err := resolve(target)
	if err != nil {
		return Result{Error: err.Error()}
	}
	ref, _ := ParseRef(target)
	return s.actChecked(func() (func() error, error) {
		check, err := f(loc)
		return check, s.detachedError(ref, loc, err)
	})
}

// checkable are the roles fill_form sets with a click (setChecked).
var checkable = map[string]bool{"checkbox": true, "radio": true, "switch": true, "menuitemcheckbox": true,
	"menuitemradio": true}

// fillForm fills each field by its type (given, else the role of its ref in the last snapshot): textbox and
// slider fill, checkbox and radio set checked to value == "true", combobox selects the option by value or label
// (filling instead when it is not a <select>), as Playwright MCP. It stops at the first error.
func (s *Session) fillForm(tool ToolName, fields []formField) Result {
	type resolved struct {
		loc            playwright.Locator
		ref, kind, val string
	}
	var todo []resolved
	for i, f := range fields {
		if strings.TrimSpace(f.Target) == "" {
			return missing(tool, fmt.Sprintf("fields[%d].target", i))
		}
		val, err := f.Value.text()
		if err != nil {
			return Result{Error: fmt.Sprintf("Invalid arguments for %s: fields[%d].value: %v", tool, i, err)}
		}
		loc, err := s.Locator(f.Target)
		if err != nil {
			return Result{Error: err.Error()}
		}
		ref, _ := ParseRef(f.Target)
		kind := string(f.Type)
		if kind == "" {
			s.mu.Lock()
			kind = s.refs[ref]
			s.mu.Unlock()
		}
		todo = append(todo, resolved{loc, ref, kind, val})
	}
	var notes []string
	r := s.act(func() error {
		for _, f := range todo {
			var err error
			switch f.kind {
			case "checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio":
				var note string
				note, err = s.setChecked(f.ref, f.loc, strings.EqualFold(strings.TrimSpace(f.val), "true"))
				if note != "" {
					notes = append(notes, note)
				}
			case "combobox", "listbox":
				vals := []string{f.val}
				_, err = f.loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &vals})
				if err != nil && strings.Contains(err.Error(), "not a <select>") {
					err = f.loc.Fill(f.val)
				}
			default:
				err = f.loc.Fill(f.val)
			}
			if checkable[f.kind] {
				if err != nil { // setChecked has made a lost node a stale ref already
					return err
				}
				continue
			}
			if err = s.detachedError(f.ref, f.loc, err); err != nil {
				return err
			}
		}
		return nil
	})
	r.Harness = append(r.Harness, notes...)
	return r
}

// setChecked sets a checkbox or radio (fill_form) as click clicks (detach.go): through the click probe's element
// handle, so that a node the page replaces before the press fails at once as a stale ref (WhyDetached) instead
// of a locator waiting out the action timeout, and a click lost between press and release (Playwright then
// reports that the click did not change the state, or that the element left) fails as a stale ref
// (WhyClickLost) — the stale_ref_refresh guard's case, as for browser_click. When
// the probe cannot be armed or read within the action timeout it falls back to the locator, and note is the
// ProbeSkipped line for Result.Harness.
func (s *Session) setChecked(ref string, loc playwright.Locator, want bool) (note string, err error) {
	el, read, gone, _ := s.clickProbe(loc)
	if gone {
		return "", &StaleRefError{Ref: ref, Why: WhyDetached}
	}
	if el == nil {
		note = fmt.Sprintf("%s (not armed within the %v action timeout): ref %s, fill_form checkbox", ProbeSkipped,
			s.opts.ActionTimeout, ref)
		return note, s.detachedError(ref, loc, loc.SetChecked(want))
	}
	err = el.SetChecked(want)
	switch read() {
	case probeActed:
		// Playwright reads the state again on the same element after its click (_setChecked); a page that
		// re-renders the control once it handled the click makes that read fail with "Element is not attached"
		// although the click was delivered: the field is set.
		if err != nil && strings.Contains(err.Error(), playwrightNotAttached) {
			return "", nil
		}
	case probeLost:
		return "", &StaleRefError{Ref: ref, Why: WhyClickLost}
	case probeSkipped:
		note = fmt.Sprintf("%s (no answer within the %v action timeout): ref %s, fill_form checkbox", ProbeSkipped,
			s.opts.ActionTimeout, ref)
	}
	return note, s.detachedError(ref, loc, err)
}

// evaluate runs the function with page.Evaluate (or locator.Evaluate with a target). Unbounded on purpose: this
// is the pre-fix behaviour evaluate_isolation replaces. The value is rendered as JSON (2-space indent),
// "undefined" for undefined/null.
func (s *Session) evaluate(a evaluateArgs) Result {
	var v any
	var err error
	if strings.TrimSpace(a.Target) != "" {
		loc, lerr := s.Locator(a.Target)
		if lerr != nil {
			return Result{Error: lerr.Error()}
		}
		v, err = loc.Evaluate(a.Function, nil)
	} else {
		v, err = s.cur().Evaluate(a.Function)
	}
	if err != nil {
		return Result{Error: err.Error()}
	}
	return Result{Result: FormatValue(v)}
}

// FormatValue renders an evaluate result as JSON with 2-space indentation and no HTML escaping (like
// JSON.stringify(v, null, 2)); nil (JS undefined or null) is "undefined"; values JSON cannot hold (NaN) use
// fmt's %v.
func FormatValue(v any) string {
	if v == nil {
		return "undefined"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// waitFor implements browser_wait_for: sleep time seconds (≤30), then wait for textGone to be hidden and text
// to be visible (each within the action timeout).
func (s *Session) waitFor(a waitForArgs) Result {
	if a.Time == nil && a.Text == "" && a.TextGone == "" {
		return Result{Error: "Either time, text or textGone must be provided"}
	}
	if a.Time != nil && *a.Time > 0 {
		time.Sleep(min(time.Duration(*a.Time*float64(time.Second)), maxWait))
	}
	p := s.cur()
	if a.TextGone != "" {
		if err := p.GetByText(a.TextGone).First().WaitFor(playwright.LocatorWaitForOptions{
			State: playwright.WaitForSelectorStateHidden}); err != nil {
			return Result{Error: err.Error()}
		}
	}
	if a.Text != "" {
		if err := p.GetByText(a.Text).First().WaitFor(playwright.LocatorWaitForOptions{
			State: playwright.WaitForSelectorStateVisible}); err != nil {
			return Result{Error: err.Error()}
		}
	}
	what := a.Text
	if what == "" {
		what = a.TextGone
	}
	if what == "" {
		what = strconv.FormatFloat(*a.Time, 'f', -1, 64)
	}
	return Result{Result: "Waited for " + what}
}
