package zoo

import (
	"context"
	"strings"
	"testing"

	"webbench/suites"
)

// An attempt's strings that another run would not share are the Zoo's loopback origin and the tenant's path:
// both are in its start URL, and two attempts of one task differ in the tenant only.
func TestEnvVolatile(t *testing.T) {
	s, err := NewSuite(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task := s.Tasks()[0]
	var got [][]string
	for i := 0; i < 2; i++ {
		env, err := s.Open(context.Background(), task, "a")
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close(context.Background())
		v := suites.Volatile(env)
		if len(v) != 2 || !strings.HasPrefix(v[0], "http://127.0.0.1:") || !strings.HasPrefix(v[1], "/t/") ||
			!strings.HasPrefix(env.StartURL(), v[0]+v[1]) {
			t.Fatalf("volatile %q for start URL %s", v, env.StartURL())
		}
		got = append(got, v)
	}
	if got[0][0] != got[1][0] || got[0][1] == got[1][1] {
		t.Errorf("two tenants of one server: %q and %q", got[0], got[1])
	}
}
