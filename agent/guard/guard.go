// Package guard holds the seven guards of GUARDS.md, each a type implementing agent.Hook and the hook
// interfaces it needs, and a registry by name (Names, Default, Parse, Build). Every guard is on by default;
// a guard that is off is simply absent from the hook list, so the agent behaves exactly as before the fix the
// guard reproduces. Guards keep their state in the attempt (agent.State), never in the hook value, so one
// hook value serves concurrent attempts. Every action a guard takes is recorded with Attempt.Event.
package guard

// Guard names, in registry order.
const (
	NameInterceptHint     = "intercept_hint"
	NameRepeatGuard       = "repeat_guard"
	NameFinalRecovery     = "final_recovery"
	NameSnapshotReady     = "snapshot_ready"
	NameStaleRefRefresh   = "stale_ref_refresh"
	NameEvaluateIsolation = "evaluate_isolation"
	NameVisualProgress    = "visual_progress"
)
