package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// ErrTaintUnrecorded is a PostToolUse whose taint could be recorded
// nowhere, not even in the workspace's taint journal: the result already
// reached the model, so the hook stops the session (stopJSON) and the
// workspace reads every session as critical until a human clears it.
var ErrTaintUnrecorded = errors.New("the taint of this result could not be recorded anywhere (the disk is full)")

// StopResponse is the JSON a hook after a call writes to stop Claude:
// continue false ends the turn and shows the user stopReason; decision
// "block" shows Claude the reason.
type StopResponse struct {
	Continue   bool   `json:"continue"`
	StopReason string `json:"stopReason"`
	Decision   string `json:"decision"`
	Reason     string `json:"reason"`
}

// postAnswer is how a hook after a call answers err: a taint recorded
// nowhere stops the session with the reason (status 0, the JSON on
// stdout, which Claude Code reads only then); any other error is the
// usual blocking error (status 2, the message shown to Claude).
func postAnswer(stdout io.Writer, err error) error {
	if !errors.Is(err, ErrTaintUnrecorded) {
		return err
	}
	msg := clip(err.Error() + ". Parallax stopped this session: what the last tool returned was not recorded, " +
		"so no further call can be judged with it. Free disk space and run `parallax doctor` in the project.")
	b, merr := json.Marshal(StopResponse{Continue: false, StopReason: msg, Decision: "block", Reason: msg})
	if merr == nil {
		_, merr = stdout.Write(append(b, '\n'))
	}
	if merr != nil {
		return errors.Join(err, merr)
	}
	return nil
}

// journalFirst records in the workspace's taint journal what the result
// of a call holds (its DLP level), before the workspace is opened: the
// database may be unable to open on a full disk, the journal's room is
// written ahead. A result DLP finds public writes nothing. It returns
// the classifier, which remembers the result's classification, for the
// gate to reuse. An error wraps ErrTaintUnrecorded: it has marked the
// workspace (MarkUnrecorded), if it could.
func journalFirst(root string, in *Input) (ifc.ContentClassifier, error) {
	text := in.ResultText()
	c, err := shield.NewClassifier()
	if err != nil {
		return nil, unrecorded(root, fmt.Errorf("classify the result of %s: %w", in.ToolName, err))
	}
	mc := &memoClassifier{inner: c}
	lvl, _ := mc.Classify(text)
	if lvl <= ifc.Public {
		return mc, nil
	}
	if err := workspace.JournalTaint(root, in.SessionID, int(lvl), "result of "+in.ToolName); err != nil {
		return nil, unrecorded(root, err)
	}
	return mc, nil
}

// journalCritical records that the session saw what could not be
// classified (the result of a tool, or what an event showed the model),
// when the workspace cannot be opened or the classification failed.
func journalCritical(root, session, what string, cause error) error {
	if err := workspace.JournalTaint(root, session, int(ifc.Critical), "unclassified result of "+what); err != nil {
		return unrecorded(root, errors.Join(cause, err))
	}
	return fmt.Errorf("the result of %s was not classified (%w); session %s is now treated as having seen "+
		"critical data", what, cause, session)
}

// unrecorded marks the workspace at root as holding a raise recorded
// nowhere and returns the error that stops the session.
func unrecorded(root string, cause error) error {
	if err := workspace.MarkUnrecorded(root); err != nil {
		return fmt.Errorf("%w (%w; marking the workspace failed too: %w)", ErrTaintUnrecorded, cause, err)
	}
	return fmt.Errorf("%w (%w); every session of this workspace reads as critical until it is cleared",
		ErrTaintUnrecorded, cause)
}

// memoClassifier remembers the last classification, so that the gate
// does not scan the same result again.
type memoClassifier struct {
	inner  ifc.ContentClassifier
	mu     sync.Mutex
	text   string
	done   bool
	level  ifc.Level
	labels []string
}

var _ ifc.ContentClassifier = (*memoClassifier)(nil)

func (m *memoClassifier) Classify(text string) (ifc.Level, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.done || text != m.text {
		m.level, m.labels = m.inner.Classify(text)
		m.text, m.done = text, true
	}
	return m.level, m.labels
}
