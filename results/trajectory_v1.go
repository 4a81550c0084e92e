package results

import (
	"encoding/json"

	"webbench/browser"
)

// trajectorySchemaV1 is the trajectory schema version that stored tool results and the first observation as
// text: ToolRecord "raw" and "text" (browser.Result.Format of the raw and the model-facing result) and
// "first_observation" (the formatted observation, "" when none).
const trajectorySchemaV1 = 1

// trajectoryV1 is a version 1 trajectory: Trajectory with the fields whose type changed shadowed by their
// version 1 form (encoding/json decodes a key into the least nested field that has it), so the strict decoder
// still refuses unknown fields.
type trajectoryV1 struct {
	Trajectory
	FirstObservation string    `json:"first_observation"`
	Steps            []*stepV1 `json:"steps"`
}

// stepV1 is a version 1 Step: its results in their text form.
type stepV1 struct {
	Step
	Results []*toolRecordV1 `json:"results,omitempty"`
}

// toolRecordV1 is a version 1 ToolRecord: Raw the raw result's text, Text the model-facing one ("" in some
// external agents' records, where readers took Raw).
type toolRecordV1 struct {
	ToolRecord
	Raw  string `json:"raw"`
	Text string `json:"text"`
}

// decodeTrajectoryV1 reads a version 1 trajectory strictly and converts it to the current shape: the one
// place a stored result text is read back into fields (browser.ParseResult, the inverse of Format for every
// text the loop wrote). The model-facing result is kept only when its text differs from the raw one, as
// ToolRecord stores it; an empty text is the raw result, as the version 1 readers took it.
func decodeTrajectoryV1(b []byte) (*Trajectory, error) {
	var v1 trajectoryV1
	if err := decodeStrict(b, &v1); err != nil {
		return nil, err
	}
	t := v1.Trajectory
	t.SchemaVersion = TrajectorySchemaVersion
	if v1.FirstObservation != "" {
		first := browser.ParseResult(v1.FirstObservation)
		t.FirstObservation = &first
	}
	t.Steps = nil
	if v1.Steps != nil {
		t.Steps = make([]*Step, len(v1.Steps))
	}
	for i, sv := range v1.Steps {
		if sv == nil {
			continue
		}
		st := sv.Step
		st.Results = nil
		if sv.Results != nil {
			st.Results = make([]*ToolRecord, len(sv.Results))
		}
		for j, rv := range sv.Results {
			if rv != nil {
				st.Results[j] = rv.convert()
			}
		}
		t.Steps[i] = &st
	}
	return &t, nil
}

// convert is the version 1 record with its texts read into fields.
func (rv *toolRecordV1) convert() *ToolRecord {
	r := rv.ToolRecord
	r.Raw, r.Shown = browser.ParseResult(rv.Raw), nil
	if rv.Text != "" && rv.Text != rv.Raw {
		shown := browser.ParseResult(rv.Text)
		r.Shown = &shown
	}
	return &r
}

// trajectoryVersion is the schema_version of the trajectory JSON b (0 when it has none or b is not a JSON
// object: the strict decode that follows reports the error).
func trajectoryVersion(b []byte) int {
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	_ = json.Unmarshal(b, &head)
	return head.SchemaVersion
}
