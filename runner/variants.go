package runner

import (
	"fmt"
	"io"
	"os"

	"webbench/agent"
	"webbench/scripted"
)

// CheckVariants checks what can be checked of vs before anything runs: an external agent's command (and that
// neither screenshots, which only the built-in loop keeps for the judge, nor a prompt file apply to it), scripted
// profiles, prompt files, and that a real model has its key in the environment — a warning on warn, not an
// error: local servers need none. The error names the variant.
func CheckVariants(vs []Variant, screenshots bool, warn io.Writer) error {
	for _, v := range vs {
		if v.Agent != nil && screenshots {
			return fmt.Errorf("%s: --screenshots cannot apply to an external agent (only the built-in loop keeps "+
				"screenshots for the judge): remove it", v.Name)
		}
		if v.Agent != nil {
			// Run checks it too; here a dry run and the ablation's plan print catch it as well.
			if err := CheckAgentCmd(v.Agent); err != nil {
				return fmt.Errorf("%s: %v", v.Name, err)
			}
			if v.PromptFile != "" {
				return fmt.Errorf("%s: prompt %s cannot apply to an external agent (it has its own prompt)", v.Name,
					v.PromptFile)
			}
		}
		if v.Model.Kind == "scripted" {
			if err := CheckProfile(v.Model.Profile); err != nil {
				return fmt.Errorf("%s: %v", v.Name, err)
			}
		}
		if _, err := agent.LoadPrompt(v.PromptFile); err != nil {
			return fmt.Errorf("%s: %v", v.Name, err)
		}
		if v.Model.Kind == "openai" {
			env := v.Model.APIKeyEnv
			if env == "" {
				env = "OPENAI_API_KEY"
			}
			if os.Getenv(env) == "" {
				fmt.Fprintf(warn, "warning: %s: $%s is not set; %s will be called without a key\n", v.Name, env,
					v.Model.BaseURL)
			}
		}
	}
	return nil
}

// CheckProfile checks that the scripted policy's fault profile name (a built-in, or a YAML file) loads; its error
// names the file, line and key of a bad file, and the near-miss of a built-in name.
func CheckProfile(name string) error {
	_, err := scripted.LoadProfile(name)
	return err
}
