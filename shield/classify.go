package shield

import (
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/ifc"
)

// dlpClassifier adapts the DLP detector to IFC: secrets (credentials,
// keys, tokens) are critical, personal, health and payment data are
// restricted, and everything else is public. Labels are scanner ids,
// never the matched text.
type dlpClassifier struct{ d *dlp.Detector }

var (
	_ ifc.ContentClassifier = dlpClassifier{}
	_ ifc.EncodedClassifier = dlpClassifier{}
)

func (c dlpClassifier) Classify(text string) (ifc.Level, []string) {
	res := c.d.Scan(text)
	var labels []string
	for _, f := range res.Findings {
		if !contains(labels, f.Scanner) {
			labels = append(labels, f.Scanner)
		}
	}
	return levelOf(res.Class), labels
}

// ClassifyEncoded is Classify over the findings only decoding showed.
func (c dlpClassifier) ClassifyEncoded(text string) (ifc.Level, []string) {
	lvl, labels := ifc.Public, []string(nil)
	for _, f := range c.d.Scan(text).Findings {
		if !dlp.Decoded(f.Scanner) {
			continue
		}
		lvl = max(lvl, levelOf(f.Class))
		if !contains(labels, f.Scanner) {
			labels = append(labels, f.Scanner)
		}
	}
	return lvl, labels
}

// levelOf maps a DLP class to an IFC level; an unknown class is critical.
func levelOf(c dlp.Class) ifc.Level {
	switch c {
	case dlp.Public, dlp.Normal:
		return ifc.Public
	case dlp.Sensitive:
		return ifc.Restricted
	}
	return ifc.Critical
}

// defaultClassifier is the DLP detector with its shipped scanner actions.
func defaultClassifier() (ifc.ContentClassifier, error) {
	d, err := dlp.New()
	if err != nil {
		return nil, err
	}
	return dlpClassifier{d}, nil
}

// NewClassifier is the classifier a gate uses when its Config names none
// (DLP with its shipped scanner actions). A caller that must act on a
// result's level before it builds the gate (the Claude Code hook records
// the taint before it opens the workspace) classifies with it and hands
// the same classifier to the gate.
func NewClassifier() (ifc.ContentClassifier, error) { return defaultClassifier() }
