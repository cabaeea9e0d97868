package wire

import (
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"valid text is unchanged", "héllo\n", "héllo\n"},
		{"a literal \\x in valid text is unchanged", `printf("\x41")`, `printf("\x41")`},
		{"invalid bytes are escaped", "a\xff\xfeb", TextMarker + `a\xff\xfeb`},
		{"a cut rune is escaped byte by byte", "\xe2\x82", TextMarker + `\xe2\x82`},
		{"a literal \\x beside an invalid byte is doubled", "\\x41\xff", TextMarker + `\\x41\xff`},
		{"backslashes before an invalid byte are doubled", "\\\xff", TextMarker + `\\\xff`},
		{"backslashes before other text are kept", "\\n\xff", TextMarker + `\n\xff`},
		{"valid text that starts with the marker is escaped", TextMarker + "x", TextMarker + strings.ReplaceAll(TextMarker, `\x`, `\\x`) + "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Text(%q) = %q is not valid UTF-8", tc.in, got)
			}
			back, err := UnText(got)
			if err != nil || back != tc.in {
				t.Errorf("UnText(%q) = %q, %v, want %q", got, back, err, tc.in)
			}
		})
	}
}

func TestUnTextRefusesWhatTextCannotWrite(t *testing.T) {
	for _, s := range []string{TextMarker + `\x`, TextMarker + `\xg0`, TextMarker + `\xF0`, TextMarker + `\\\x1`} {
		if got, err := UnText(s); err == nil {
			t.Errorf("UnText(%q) = %q, nil, want an error", s, got)
		}
	}
}

// FuzzText: whatever the bytes, Text is valid UTF-8 and UnText gives
// them back.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "a\xffb", `\x41`, "\\\xff", TextMarker, TextMarker + "\xc0", `\\\\x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q is not valid UTF-8", s, got)
		}
		if back, err := UnText(got); err != nil || back != s {
			t.Fatalf("UnText(Text(%q)) = %q, %v", s, back, err)
		}
	})
}

func TestValidTextEscapesEveryStringAndLeavesTheOriginal(t *testing.T) {
	ev := &pb.Event{SessionId: "s\xff", Kind: &pb.Event_ToolResult{ToolResult: &pb.ToolResult{CallId: "c", Output: "out\xfe"}}}
	got := ValidText(ev)
	if got == ev {
		t.Fatal("ValidText returned the invalid message itself")
	}
	if ev.GetSessionId() != "s\xff" || ev.GetToolResult().GetOutput() != "out\xfe" {
		t.Errorf("ValidText changed its argument: %v", ev)
	}
	if got.GetSessionId() != Text("s\xff") || got.GetToolResult().GetOutput() != Text("out\xfe") || got.GetToolResult().GetCallId() != "c" {
		t.Errorf("ValidText = %v, want its strings escaped", got)
	}
	if _, err := proto.Marshal(got); err != nil {
		t.Errorf("marshal the escaped message: %v", err)
	}

	ok := &pb.Event{SessionId: "s", Kind: &pb.Event_ToolResult{ToolResult: &pb.ToolResult{Output: "fine"}}}
	if ValidText(ok) != ok {
		t.Error("ValidText copied a valid message")
	}
}

func TestValidTextReachesListsAndMaps(t *testing.T) {
	st := &structpb.Struct{Fields: map[string]*structpb.Value{
		"k\xff": structpb.NewStringValue("v\xfe"),
		"list":  structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("\xc0")}}),
	}}
	got := ValidText(st)
	if _, err := proto.Marshal(got); err != nil {
		t.Fatalf("marshal the escaped message: %v", err)
	}
	if v := got.GetFields()[Text("k\xff")]; v.GetStringValue() != Text("v\xfe") {
		t.Errorf("map entry = %v, want key and value escaped", v)
	}
	if v := got.GetFields()["list"].GetListValue().GetValues()[0].GetStringValue(); v != Text("\xc0") {
		t.Errorf("list element = %q, want %q", v, Text("\xc0"))
	}
	req := &pb.LLMRequest{StopSequences: []string{"ok", "\xff"}}
	if got := ValidText(req).GetStopSequences(); got[0] != "ok" || got[1] != Text("\xff") {
		t.Errorf("repeated string = %q", got)
	}
}

// BenchmarkValidText is the cost added to every message on the link:
// go test -bench ValidText ./internal/wire
func BenchmarkValidText(b *testing.B) {
	for _, bc := range []struct {
		name string
		m    *pb.EngineMessage
	}{
		{"valid result 4KiB", &pb.EngineMessage{Msg: &pb.EngineMessage_ToolResult{ToolResult: &pb.ToolResult{
			CallId: "c", SessionId: "s", Output: strings.Repeat("héllo wörld\n", 320)}}}},
		{"invalid result 4KiB", &pb.EngineMessage{Msg: &pb.EngineMessage_ToolResult{ToolResult: &pb.ToolResult{
			CallId: "c", SessionId: "s", Output: strings.Repeat("hello \xff\n", 512)}}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				ValidText(bc.m)
			}
		})
	}
}
