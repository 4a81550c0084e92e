package results

import "path/filepath"

// AgentsDir is the run directory's folder of external agents' output: agents/<attempt_id>.stdout and
// agents/<attempt_id>.stderr (the runner writes them, redacted; the HTML attempt pages link them).
const AgentsDir = "agents"

// AgentStderr and AgentStdout are the paths, relative to the run directory, of the standard error and output an
// external agent wrote during attempt id.
func AgentStderr(id string) string { return filepath.Join(AgentsDir, id+".stderr") }

// AgentStdout is AgentStderr's standard output.
func AgentStdout(id string) string { return filepath.Join(AgentsDir, id+".stdout") }
