package spec

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"webbench/runner"
)

// A model block's omit and max_tokens_field reach the arm's llm.Config; bad values and misspelled keys are
// refused with the spec's name.
func TestSpecModelOmitAndMaxTokensField(t *testing.T) {
	src := "name: x\nreps: 1\nbaseline:\n  model: {kind: openai, name: o3-mini, omit: [temperature, top_p], max_tokens_field: max_completion_tokens}\n" +
		"variants:\n  - name: ollama\n    model: {kind: openai, name: llama3.2, base_url: http://127.0.0.1:11434/v1, max_tokens_field: max_tokens}\n"
	s, err := ParseSpec("spec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	base := *s.Baseline.Model
	if !slices.Equal(base.Omit, []string{"temperature", "top_p"}) || base.MaxTokensField != "max_completion_tokens" {
		t.Fatalf("baseline model %+v", base)
	}
	cfg := runner.LLMConfig(mergeModel(base, *s.Variants[0].Model), "")
	if !slices.Equal(cfg.Omit, []string{"temperature", "top_p"}) || cfg.MaxTokensField != "max_tokens" || cfg.Model != "llama3.2" {
		t.Errorf("variant llm config %+v", cfg)
	}
	for bad, want := range map[string]string{
		"name: x\nreps: 1\nbaseline:\n  model: {kind: openai, name: m, omit: [temp]}\n":                "omit: unknown field \"temp\"",
		"name: x\nreps: 1\nbaseline:\n  model: {kind: openai, name: m, max_tokens_field: tokens}\n":    "max_tokens_field \"tokens\"",
		"name: x\nreps: 1\nbaseline:\n  model: {kind: openai, name: m, max_token_field: max_tokens}\n": "max_token_field",
	} {
		_, err := ParseSpec("spec.yaml", []byte(bad+"variants:\n  - name: a\n"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "spec.yaml") {
			t.Errorf("%q: error %v, want one naming spec.yaml and %q", bad, err, want)
		}
	}
}

// Every field a variant's model block sets overrides the baseline's: a field left out of mergeModel (as
// price_in, price_out and call_timeout once were, so a variant's prices never reached --max-cost) fails here,
// including fields added later.
func TestMergeModelOverlaysEveryField(t *testing.T) {
	var o runner.Model
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("set-" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Float64:
			f.SetFloat(0.5)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"seed"}))
		case reflect.Pointer:
			p := reflect.New(f.Type().Elem())
			switch p.Elem().Kind() {
			case reflect.Float32:
				p.Elem().SetFloat(0.25)
			case reflect.Int:
				p.Elem().SetInt(9)
			}
			f.Set(p)
		default:
			t.Fatalf("field %s of kind %s: extend this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	got := mergeModel(runner.Model{}, o)
	if !reflect.DeepEqual(got, o) {
		t.Errorf("mergeModel dropped fields:\n got  %+v\n want %+v", got, o)
	}
}

// A variant's partial model block keeps the rest of the baseline's model (README's
// `hot: model: {temperature: 1.0, top_p: 1.0}` arm on an openai:m baseline ran as scripted:clean, and on a
// scripted:observed baseline as scripted:clean, because the block was normalised alone before the merge).
func TestPartialVariantModelKeepsTheBaselines(t *testing.T) {
	for _, c := range []struct{ base, kind, name, profile, url string }{
		{"{kind: openai, name: m, base_url: \"http://127.0.0.1:9/v1\"}", "openai", "m", "", "http://127.0.0.1:9/v1"},
		{"{kind: scripted, profile: observed}", "scripted", "scripted", "observed", ""},
	} {
		src := "name: x\nreps: 1\nbaseline:\n  model: " + c.base + "\nvariants:\n  - name: hot\n    model: {temperature: 1.0, top_p: 1.0}\n"
		s, err := ParseSpec("spec.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		arms, err := s.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		m := arms.Variants[1].Model
		if m.Kind != c.kind || m.Name != c.name || m.Profile != c.profile || m.BaseURL != c.url ||
			m.Temp == nil || *m.Temp != 1 || m.TopP == nil || *m.TopP != 1 {
			t.Errorf("baseline %s: variant model %+v, want %s:%s profile %q url %q at temperature 1, top_p 1",
				c.base, m, c.kind, c.name, c.profile, c.url)
		}
		if base := arms.Variants[0].Model; base.Temp != nil || base.Kind != c.kind {
			t.Errorf("baseline model changed: %+v", base)
		}
	}
	// A block that names only an endpoint is an openai model with the baseline's name.
	s, err := ParseSpec("spec.yaml", []byte("name: x\nbaseline:\n  model: {kind: openai, name: m}\nvariants:\n  - name: local\n    model: {base_url: \"http://127.0.0.1:11434/v1\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	arms, _ := s.Expand(nil)
	if m := arms.Variants[1].Model; m.Kind != "openai" || m.Name != "m" || m.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Errorf("endpoint-only block: %+v", m)
	}
}

// A variant block that names another kind starts from nothing: an openai arm on a
// scripted baseline needs its own name, and keeps none of the scripted fields.
func TestVariantModelOfAnotherKind(t *testing.T) {
	_, err := ParseSpec("spec.yaml", []byte("name: x\nvariants:\n  - name: real\n    model: {kind: openai, base_url: \"http://127.0.0.1:9/v1\"}\n"))
	if err == nil || err.Error() != "spec.yaml:4:5: variant real: model: openai model needs a name" {
		t.Fatalf("error %v, want spec.yaml:4:5: variant real: model: openai model needs a name", err)
	}
	s, err := ParseSpec("spec.yaml", []byte("name: x\nbaseline:\n  model: {kind: scripted, profile: observed}\nvariants:\n  - name: real\n    model: {kind: openai, name: m, base_url: \"http://127.0.0.1:9/v1\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	arms, _ := s.Expand(nil)
	if m := arms.Variants[1].Model; m.Kind != "openai" || m.Name != "m" || m.Profile != "" {
		t.Errorf("openai arm on a scripted baseline: %+v", m)
	}
}
