// Package guard holds the seven guards of GUARDS.md, each a type implementing agent.Hook and the hook
// interfaces it needs, and a registry by name (Names, Default, Parse, Build) that each guard's file joins from
// init (register: name, hook order, tool-level or not, constructor), so a new guard is one file. Every guard is on by default;
// a guard that is off is simply absent from the hook list, so the agent behaves exactly as before the fix the
// guard reproduces. Guards keep their state in the attempt (agent.State), never in the hook value, so one
// hook value serves concurrent attempts. Every action a guard takes is recorded with Attempt.Event.
package guard
