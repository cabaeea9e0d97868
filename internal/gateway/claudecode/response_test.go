package claudecode

import "testing"

func TestResponseText(t *testing.T) {
	for _, c := range []struct{ name, resp, want string }{
		{"absent", ``, ""},
		{"null", `null`, ""},
		{"bash", `{"stdout":"hello","stderr":"warn","interrupted":false,"isImage":false}`, "warn\nhello"},
		{"read", `{"type":"text","file":{"filePath":"/w/a","content":"line1\nline2","numLines":2,"startLine":1,"totalLines":2}}`,
			"line1\nline2\n/w/a\ntext"},
		{"read image", `{"type":"image","file":{"base64":"iVBORw0KGgo=","type":"image/png","originalSize":10}}`,
			"image/png\nimage"},
		{"mcp content", `[{"type":"text","text":"result one"},{"type":"image","data":"AAAA","mimeType":"image/png"}]`,
			"result one\ntext\nimage/png\nimage"},
		{"webfetch", `{"bytes":10,"code":200,"codeText":"OK","result":"page summary","url":"https://x.example"}`,
			"OK\npage summary\nhttps://x.example"},
		{"plain string", `"just text"`, "just text"},
		{"nested arrays", `{"results":[{"title":"a","content":["b",{"c":"d"}]}]}`, "b\nd\na"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ResponseText([]byte(c.resp)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
