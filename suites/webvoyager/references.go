package webvoyager

import (
	"fmt"
	"path/filepath"
	"strings"

	"webbench/suites"
)

// References are the tasks joined to WebVoyager result folders by task id ("Amazon--0" for the folder
// taskAmazon--0): their answer rules (reference_answer.json, or a GAIA-format tasks file's "Final answer") and
// question text (the tasks file).
type References struct {
	// Tasks are the reference tasks by id.
	Tasks map[string]suites.Task
	// Rules counts the tasks of the tasks file that carry an answer rule (0: not GAIA format).
	Rules int
	// Names are the files' base names ("reference_answer.json or WebVoyager_data.jsonl"), for messages.
	Names string
}

// LoadReferences reads the reference answers (answersFile: WebVoyager reference_answer.json, --answers) and
// the tasks (tasksFile: WebVoyager or GAIA-format JSONL, --tasks-file) for judging result folders; nil when
// neither is given. Errors, worded for bench judge's flags: a file that is missing or unreadable, naming it; and
// when needAnswers (the answer judge), neither file given (the answers judged, named by subject — "WebVoyager
// result folders", "the answers of --answers-jsonl" — carry no reference answer) or only a tasks file that gives
// no answer (not GAIA format).
func LoadReferences(answersFile, tasksFile string, needAnswers bool, subject string) (*References, error) {
	if answersFile == "" && tasksFile == "" {
		if needAnswers {
			return nil, fmt.Errorf("--judge answer on %s needs --answers reference_answer.json (or a GAIA-format "+
				"--tasks-file with \"Final answer\" fields): they hold no reference answer", subject)
		}
		return nil, nil
	}
	var answers []RefAnswer
	var raws []RawTask
	var files []string
	if answersFile != "" {
		a, err := ReadAnswersFile(answersFile)
		if err != nil {
			return nil, fmt.Errorf("--answers %s: %v", answersFile, err)
		}
		answers = a
		files = append(files, answersFile)
	}
	if tasksFile != "" {
		r, err := ReadTasksFile(tasksFile)
		if err != nil {
			return nil, fmt.Errorf("--tasks-file %s: %v", tasksFile, err)
		}
		raws = r
		files = append(files, tasksFile)
	}
	refs := newReferences(raws, answers, files)
	if needAnswers && answersFile == "" && refs.Rules == 0 {
		return nil, fmt.Errorf("--tasks-file %s gives no task an answer (no \"Final answer\" field: not GAIA format): "+
			"--judge answer on %s needs --answers reference_answer.json", tasksFile, subject)
	}
	return refs, nil
}

// newReferences joins the tasks of a tasks file (raws, already read) to the reference answers (answers), as the
// suite joins them, and adds a task with the answer rule alone for every answer no task took. files
// are the paths read, named in messages by their base names.
func newReferences(raws []RawTask, answers []RefAnswer, files []string) *References {
	refs := &References{Tasks: map[string]suites.Task{}}
	if raws != nil {
		ts, _ := Join(raws, answers)
		for _, t := range ts {
			refs.Tasks[t.ID] = t
			if t.Check.Answer != nil {
				refs.Rules++
			}
		}
	}
	for _, a := range answers {
		if _, ok := refs.Tasks[a.Key()]; !ok {
			rule := AnswerRuleFor(a)
			refs.Tasks[a.Key()] = suites.Task{ID: a.Key(), Check: suites.Check{Answer: &rule}}
		}
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	refs.Names = strings.Join(names, " or ")
	return refs
}
