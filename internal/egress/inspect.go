package egress

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parallax/parallax/dlp"
)

// dlpInspect returns the default Inspect: the dlp package's detector
// with its default scanners; a finding of class SECRET (credentials,
// private keys, secret markings) refuses. The error names the scanners,
// never the text.
func dlpInspect() (func(where, text string) error, error) {
	d, err := dlp.New()
	if err != nil {
		return nil, fmt.Errorf("load dlp: %w", err)
	}
	return func(where, text string) error {
		res := d.Scan(text)
		if res.Class != dlp.Secret {
			return nil
		}
		var ids []string
		for _, f := range res.Findings {
			if f.Class == dlp.Secret && !slices.Contains(ids, f.Scanner) {
				ids = append(ids, f.Scanner)
			}
		}
		if len(ids) == 0 {
			ids = []string{dlp.ScanErrorID}
		}
		return fmt.Errorf("%s holds %s", where, strings.Join(ids, ", "))
	}, nil
}
