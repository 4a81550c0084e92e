package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadJSONL reads the JSON Lines file path (blank lines skipped) into one T per line, calling check, when not
// nil, on each with its 1-based line number. Every error names the file and line (path:N: …): a line that does
// not decode as T ("not a JSON object " + shape, e.g. `{"task_id", "answer"}`), or check's error. A line may be up
// to 16 MiB.
func ReadJSONL[T any](path, shape string, check func(line int, v *T) error) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readJSONL(f, path, shape, check)
}

func readJSONL[T any](r io.Reader, path, shape string, check func(line int, v *T) error) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object %s: %v", path, n, shape, err)
		}
		if check != nil {
			if err := check(n, &v); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
