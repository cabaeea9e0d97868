package dlp

// encodedCases join the scanner table's unit cases: credentials encoded
// in bodies and arguments, and the blobs and hashes they must not be
// confused with.
var encodedCases = []scanCase{
	{"base64 json field", `{"data":"eyJ0b2tlbiI6ImdocF9acThXbUsycEx4NE5jN1J0MVZiOUhkM0pmNkdzMFlhNVVlMlQifQ=="}`, []string{"encoded_secret"}},
	{"hex field", `{"blob":"6177735f7365637265745f6163636573735f6b65793d5a7138576d4b32704c78344e63375274315662394864334a663647733059613555653254715738"}`, []string{"encoded_secret"}},
	{"percent form value", "t=%67%68%70%5F%5A%71%38%57%6D%4B%32%70%4C%78%34%4E%63%37%52%74%31%56%62%39%48%64%33%4A%66%36%47%73%30%59%61%35%55%65%32%54&x=1", []string{"encoded_secret"}},
	{"base64 of plain text", `{"text":"TWVldGluZyBub3RlczogYnVkZ2V0IHJldmlldyBhbmQgaGlyaW5nIHBsYW4gZm9yIFEzLg=="}`, nil},
	{"sha256 hex", `{"sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}`, nil},
	{"png data uri", `{"img":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}`, nil},
	{"unsigned jwt", `{"hint":"eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyLTQyIiwiYXVkIjoid2ViIn0."}`, nil},
	{"long identifier", "TestTypicalInputsAllowedWithoutAllocating and /usr/local/lib/python3/site-packages", nil},
}
