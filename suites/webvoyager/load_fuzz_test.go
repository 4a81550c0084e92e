package webvoyager

import (
	"bytes"
	"testing"
)

// FuzzParseTasks: the JSONL task loader never panics; errors name the file.
func FuzzParseTasks(f *testing.F) {
	for _, s := range []string{
		`{"web_name": "Allrecipes", "id": "Allrecipes--0", "ques": "Find a recipe.", "web": "https://www.allrecipes.com/"}`,
		"{\"id\": \"x--1\", \"ques\": \"q\"}\n{\"id\": \"x--1\"", "\ufeff{}", "{\"id\": 3}", "\n\n", "[1]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		_, err := ParseTasks(bytes.NewReader([]byte(data)), "fuzz.jsonl")
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte("fuzz.jsonl")) {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
