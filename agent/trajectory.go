package agent

import "webbench/results"

// The trajectory types live with the run directory's records in package results; these aliases keep the
// agent's names.
type (
	// Trajectory is results.Trajectory: the full record of one attempt.
	Trajectory = results.Trajectory
	// FinishRecord is results.FinishRecord: the serialisable form of Finish.
	FinishRecord = results.FinishRecord
	// Step is results.Step: one model call and the tool calls it made.
	Step = results.Step
	// RequestSummary is results.RequestSummary: a model request without the conversation.
	RequestSummary = results.RequestSummary
	// ToolRecord is results.ToolRecord: one executed tool call in the trajectory.
	ToolRecord = results.ToolRecord
	// ToolCall is results.ToolCall: one tool call of a model response.
	ToolCall = results.ToolCall
	// Event is results.Event: a guard action.
	Event = results.Event
	// FinalAnswer is results.FinalAnswer: the agent's closing JSON object.
	FinalAnswer = results.FinalAnswer
)
