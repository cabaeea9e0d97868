package llm

import (
	"strconv"
	"strings"
)

// toolAssembler builds the tool calls of a streamed answer from their
// pieces. Calls are numbered in the order they start.
type toolAssembler struct {
	calls []ToolCall
	args  []strings.Builder
	open  []bool
}

// start opens a call and returns its index. A missing id is replaced by
// a stable one derived from the index.
func (a *toolAssembler) start(id, name string) (int, error) {
	if name == "" {
		return 0, malformed("tool call %d has no name", len(a.calls))
	}
	i := len(a.calls)
	if id == "" {
		id = "call_" + strconv.Itoa(i)
	}
	a.calls = append(a.calls, ToolCall{ID: id, Name: name})
	a.args = append(a.args, strings.Builder{})
	a.open = append(a.open, true)
	return i, nil
}

// delta appends a piece of call i's arguments.
func (a *toolAssembler) delta(i int, s string) error {
	if i < 0 || i >= len(a.calls) || !a.open[i] {
		return malformed("arguments for tool call %d, which is not open", i)
	}
	a.args[i].WriteString(s)
	return nil
}

// end closes call i and returns it with its arguments checked.
func (a *toolAssembler) end(i int) (ToolCall, error) {
	if i < 0 || i >= len(a.calls) || !a.open[i] {
		return ToolCall{}, malformed("end of tool call %d, which is not open", i)
	}
	a.open[i] = false
	in, err := toolInput(a.args[i].String())
	if err != nil {
		return ToolCall{}, malformed("tool call %q (%s): %v", a.calls[i].ID, a.calls[i].Name, err)
	}
	a.calls[i].Input = in
	return a.calls[i], nil
}

// endAll closes every open call in order and returns their end events.
func (a *toolAssembler) endAll() ([]Event, error) {
	var evs []Event
	for i := range a.calls {
		if !a.open[i] {
			continue
		}
		tc, err := a.end(i)
		if err != nil {
			return nil, err
		}
		evs = append(evs, Event{Kind: EventToolEnd, Index: i, ToolCall: tc})
	}
	return evs, nil
}

// anyCalls reports whether a call was started.
func (a *toolAssembler) anyCalls() bool { return len(a.calls) > 0 }

// eventQueue is the pending events of a stream converter.
type eventQueue struct{ q []Event }

func (e *eventQueue) push(evs ...Event) { e.q = append(e.q, evs...) }

func (e *eventQueue) pop() (Event, bool) {
	if len(e.q) == 0 {
		return Event{}, false
	}
	ev := e.q[0]
	e.q = e.q[1:]
	return ev, true
}
