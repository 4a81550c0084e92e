package results

import (
	"testing"

	"webbench/llm"
)

func TestClassOf(t *testing.T) {
	for c, want := range map[llm.ErrorClass]ErrorClass{
		llm.ErrorInfra: ClassInfra, llm.ErrorQuota: ClassInfra, llm.ErrorAuth: ClassInfra, llm.ErrorConfig: ClassInfra,
		llm.ErrorRateLimit: ClassInfra,
		llm.ErrorAgent:     ClassAgent, llm.ErrorContextOverflow: ClassAgent, llm.ErrorContentFilter: ClassAgent,
		"": "", "unheard_of": "",
	} {
		if got := ClassOf(c); got != want {
			t.Errorf("ClassOf(%q) = %q, want %q", c, got, want)
		}
	}
}
