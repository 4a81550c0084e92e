package scripted

import (
	"reflect"
	"testing"

	"webbench/suites"
)

func TestAppRootAndGuesses(t *testing.T) {
	for _, tc := range []struct{ first, start, step, want string }{
		{"http://h:1/t/abc/shop/", "/", "/cart", "http://h:1/t/abc/shop/cart"},
		{"http://h:1/t/abc/shop", "/", "cart", "http://h:1/t/abc/shop/cart"},
		{"http://h:1/t/abc/recipes/search?q=soup", "/search?q=soup", "/recipe/7", "http://h:1/t/abc/recipes/recipe/7"},
		{"http://h:1/t/abc/chat/login?next=%2F", "/channels/town", "/channels/town", "http://h:1/t/abc/chat/channels/town"},
		{"https://www.allrecipes.com/", "https://www.allrecipes.com/", "/search", "https://www.allrecipes.com/search"},
		{"http://h:1/t/abc/shop/", "/", "https://example.test/x", "https://example.test/x"},
	} {
		c := &conv{task: &suites.Task{Start: tc.start}, firstURL: tc.first}
		if got := c.resolveURL(tc.step); got != tc.want {
			t.Errorf("first %s start %s: resolve(%s) = %s, want %s", tc.first, tc.start, tc.step, got, tc.want)
		}
	}
	c := &conv{snapshot: parseSnapshot("- button \"A\" [ref=f1e3]\n- button \"B\" [ref=f1e30]\n- button \"C\" [ref=f1e31]")}
	used := map[string]bool{}
	var got []string
	for i := 0; i < 12; i++ {
		g := c.guessRef("f1e3", used)
		used[g] = true
		got = append(got, g)
	}
	// e30 and e31 exist: the digit typos skip them; then the guesses go past the snapshot's refs.
	want := []string{"f1e32", "f1e33", "f1e34", "f1e35", "f1e36", "f1e37", "f1e38", "f1e39", "f1e40", "f1e41",
		"f1e42", "f1e43"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("guesses %v, want %v", got, want)
	}
}
