// Package srcerr owns the one format of an error in a file a user wrote (an ablation spec, a fault profile, a
// task file): `file:line:col: field: message`, with yaml.v3's errors brought into it at the line where the
// problem is, and the "did you mean" hint for a near-miss key or name.
package srcerr

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	"gopkg.in/yaml.v3"
)

// Error is one mistake in a user's file. Line and Col are 1-based (0: unknown, left out of the text); Field is
// the key path the mistake is in (e.g. `variant no-repeat: scope`), "" when the mistake is the file's syntax.
type Error struct {
	File      string
	Line, Col int
	Field     string
	Msg       string
}

// Error formats e as `file:line:col: field: message`, leaving out the parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(Pos(e.File, e.Line, e.Col))
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Pos is the place part of the format, `file:line:col` (line 0: `file`; col 0: `file:line`).
func Pos(file string, line, col int) string {
	switch {
	case line <= 0:
		return file
	case col <= 0:
		return fmt.Sprintf("%s:%d", file, line)
	}
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// At returns an Error at line:col of file; the message is fmt.Sprintf(format, args...).
func At(file string, line, col int, field, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Col: col, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// AtNode returns an Error at n's position (n nil: no position).
func AtNode(file string, n *yaml.Node, field, format string, args ...any) *Error {
	e := At(file, 0, 0, field, format, args...)
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

// Suggest returns ` (did you mean "x"?)` for the candidate nearest to got when it is a near miss — an edit
// distance (Levenshtein, github.com/agnivade/levenshtein, case ignored) of at most 2, or a third of got's length
// when longer, and less than got's length (a swap of two letters is 2) — or "" when none is that near. Ties go to the candidate listed first.
func Suggest(got string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		if c == got {
			return ""
		}
		d := levenshtein.ComputeDistance(strings.ToLower(got), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if n := len([]rune(got)); best == "" || bestD > max(2, n/3) || bestD >= n {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// unknownFieldRe matches yaml.v3's "field x not found in type pkg.T" (the key, the type).
var unknownFieldRe = regexp.MustCompile(`field (\S+) not found in type (\S+)`)

// yamlLineRe splits a yaml.v3 error ("line 10: …", "yaml: line 10: …") into its line and message.
var yamlLineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// FromYAML brings an error of yaml.v3 decoding data (the contents of file) into the format: each of a
// *yaml.TypeError's field errors becomes one Error (joined, one a line), an unknown key is named as such with a
// "did you mean" among keys (Keys: the struct's keys by type name; nil: no hint), and a syntax error is placed on the
// line where the document stops parsing. yaml.v3 reports a syntax error at the start of the construct it was
// parsing (libyaml's context mark), which can be lines before the problem: a bad indent on line 9 inside a list
// begun on line 6 reads "line 6". The problem's line is the one after the longest prefix of the document that
// still parses (SyntaxLine).
func FromYAML(file string, data []byte, err error, keys map[string][]string) error {
	if err == nil {
		return nil
	}
	if te := (*yaml.TypeError)(nil); errors.As(err, &te) {
		var errs []error
		for _, e := range te.Errors {
			errs = append(errs, fieldError(file, data, e, keys))
		}
		return errors.Join(errs...)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if l := SyntaxLine(data); l > 0 {
		line = l
	}
	return &Error{File: file, Line: line, Col: firstCol(data, line), Msg: "YAML syntax: " + msg}
}

// fieldError is one of a TypeError's lines as an Error.
func fieldError(file string, data []byte, e string, keys map[string][]string) *Error {
	out := &Error{File: file, Msg: e}
	if m := yamlLineRe.FindStringSubmatch(e); m != nil {
		out.Line, _ = strconv.Atoi(m[1])
		out.Msg = m[2]
	}
	if m := unknownFieldRe.FindStringSubmatch(out.Msg); m != nil {
		out.Msg = fmt.Sprintf("unknown key %q%s", m[1], Suggest(m[1], keys[m[2]]))
		out.Col = keyCol(data, out.Line, m[1])
		return out
	}
	out.Col = firstCol(data, out.Line)
	return out
}

// SyntaxLine returns the 1-based line where data stops being YAML: the line after the longest prefix of whole
// lines that parses (0 when the whole of data parses). A construct that spans lines (a flow mapping, a quoted
// string) fails in its open prefixes but parses again once closed, so the longest parsing prefix, not the
// shortest failing one, is what locates the problem.
func SyntaxLine(data []byte) int {
	lines := strings.SplitAfter(string(data), "\n")
	var n yaml.Node
	if yaml.Unmarshal(data, &n) == nil {
		return 0
	}
	for k := len(lines) - 1; k >= 0; k-- {
		if yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n) == nil {
			return k + 1
		}
	}
	return 1
}

// firstCol is the 1-based column of line's first non-blank character (0 when line is out of range).
func firstCol(data []byte, line int) int {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	return len(l) - len(strings.TrimLeft(l, " \t")) + 1
}

// Col is the 1-based column of key on line of data, else (key "" or not on the line) that of the line's first
// key: its first non-blank character after a sequence item's "- "; 0 when line is out of range.
func Col(data []byte, line int, key string) int {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	if i := strings.Index(l, key); key != "" && i >= 0 {
		return i + 1
	}
	t := strings.TrimLeft(l, " \t")
	t = strings.TrimLeft(strings.TrimPrefix(t, "-"), " \t")
	return len(l) - len(t) + 1
}

// keyCol is the 1-based column of key on line, else the line's first non-blank one.
func keyCol(data []byte, line int, key string) int {
	lines := strings.Split(string(data), "\n")
	if line >= 1 && line <= len(lines) {
		if i := strings.Index(lines[line-1], key); i >= 0 {
			return i + 1
		}
	}
	return firstCol(data, line)
}

// Keys maps the Go type name yaml.v3 names in an unknown-key error ("spec.Config") to the yaml keys of that
// struct type, for each of vals (structs or pointers to them): FromYAML's candidates for "did you mean".
func Keys(vals ...any) map[string][]string {
	m := map[string][]string{}
	for _, v := range vals {
		t := reflect.TypeOf(v)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				m[t.String()] = append(m[t.String()], name)
			}
		}
	}
	return m
}
