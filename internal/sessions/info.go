package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/termtext"
	"github.com/parallax/parallax/internal/workspace"
)

func (m *Manager) cmdStatus(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr("/status")
	}
	info, err := m.Get(ctx, c.session)
	if err != nil {
		return CommandResult{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s: %s, %d messages, started %s UTC\n", info.ID, orUntitled(info.Title), info.Messages,
		info.Created.UTC().Format(time.DateTime))
	if info.OTR {
		b.WriteString("OFF THE RECORD: read-only tools, nothing is stored\n")
	}
	cfg, err := workspace.LoadConfig(m.opts.Workspace)
	if err != nil {
		fmt.Fprintf(&b, "configuration: %v\n", err)
	} else {
		fmt.Fprintf(&b, "chat model: %s\n", chatModel(cfg))
	}
	usage, err := m.usageText(ctx, c.session, cfg)
	if err != nil {
		return CommandResult{}, err
	}
	b.WriteString(usage)
	if m.opts.Status != nil {
		b.WriteString(strings.TrimRight(m.opts.Status(), "\n") + "\n")
	}
	return CommandResult{Text: b.String()}, nil
}

func chatModel(cfg workspace.Config) string {
	if cfg.LLM == nil || cfg.LLM.Roles.Chat == "" {
		return "none configured (llm.roles.chat)"
	}
	return cfg.LLM.Roles.Chat
}

func (m *Manager) cmdUsage(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr("/usage")
	}
	cfg, err := workspace.LoadConfig(m.opts.Workspace)
	if err != nil {
		return CommandResult{}, err
	}
	text, err := m.usageText(ctx, c.session, cfg)
	return CommandResult{Text: text}, err
}

// usageText is today's LLM usage (UTC day) of every session and of this
// one, from llm_usage, with the budgets.
func (m *Manager) usageText(ctx context.Context, session string, cfg workspace.Config) (string, error) {
	day := store.Day(m.opts.Now())
	all, err := m.db.LLMTotals(ctx, day, "")
	if err != nil {
		return "", err
	}
	mine, err := m.db.LLMTotals(ctx, day, session)
	if err != nil {
		return "", err
	}
	daily, perSession := cfg.Agent.Budgets()
	var b strings.Builder
	fmt.Fprintf(&b, "today (%s UTC), all sessions: %s of a daily budget of $%.2f\n", day, usageLine(all), daily)
	fmt.Fprintf(&b, "today, this session: %s", usageLine(mine))
	if perSession > 0 {
		fmt.Fprintf(&b, " of a session budget of $%.2f", perSession)
	}
	b.WriteByte('\n')
	return b.String(), nil
}

func usageLine(u store.LLMUsage) string {
	return fmt.Sprintf("%d calls, %d input + %d output tokens, $%.4f", u.Calls, u.InputTokens, u.OutputTokens,
		float64(u.CostMicroUSD)/1e6)
}

func (m *Manager) cmdDoctor(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr("/doctor")
	}
	opts := m.opts.Doctor
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	rep := workspace.Doctor(ctx, m.opts.Workspace, opts)
	var b strings.Builder
	fmt.Fprintf(&b, "doctor: %d ok, %d warnings, %d failed, %d skipped\n", rep.Count(workspace.StatusOK),
		rep.Count(workspace.StatusWarn), rep.Count(workspace.StatusFail), rep.Count(workspace.StatusSkip))
	for _, ch := range rep.Checks {
		if ch.Status == workspace.StatusOK || ch.Status == workspace.StatusSkip {
			continue
		}
		fmt.Fprintf(&b, "%s %s: %s", ch.Status, ch.Name, ch.Detail)
		if ch.Fix != "" {
			fmt.Fprintf(&b, " (fix: %s)", ch.Fix)
		}
		b.WriteByte('\n')
	}
	return CommandResult{Text: b.String()}, nil
}

// maxReason bounds the reason /audit shows per entry.
const maxReason = 100

func (m *Manager) cmdAudit(_ context.Context, c call) (CommandResult, error) {
	n, err := parseCount(c.args, 20, 200, "/audit [N]")
	if err != nil {
		return CommandResult{}, err
	}
	var lines []string
	err = audit.Scan(audit.DefaultPath(m.opts.Workspace), audit.Filter{Last: n}, func(e audit.Entry) error {
		lines = append(lines, auditLine(e))
		return nil
	})
	if err != nil {
		return CommandResult{}, err
	}
	if len(lines) == 0 {
		return CommandResult{Text: "the audit chain is empty"}, nil
	}
	return CommandResult{Text: strings.Join(lines, "\n")}, nil
}

// auditLine shows one entry: identifiers, codes and its (redacted when it
// was recorded) reason, bounded; never the detail message, which may
// carry an error's text.
func auditLine(e audit.Entry) string {
	parts := []string{fmt.Sprintf("#%d", e.Seq), e.Time.UTC().Format(time.DateTime), string(e.Type)}
	for _, p := range []struct{ k, v string }{
		{"session", e.Session}, {"action", e.ActionType}, {"decision", e.Decision}, {"stage", e.Stage},
		{"rule", e.Rule}, {"code", e.Detail.Code}, {"ref", e.Detail.Ref},
	} {
		if p.v != "" {
			parts = append(parts, p.k+"="+termtext.OneLine(p.v))
		}
	}
	if e.Reason != "" {
		parts = append(parts, fmt.Sprintf("%q", bound(strings.Join(strings.Fields(termtext.OneLine(e.Reason)), " "), maxReason)))
	}
	return strings.Join(parts, " ")
}

// maxConfigShow bounds what /config shows.
const maxConfigShow = 64 << 10

func (m *Manager) cmdConfig(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) == 0 {
		return m.showConfig()
	}
	if c.args[0] != "set" || len(c.args) < 3 {
		return CommandResult{}, usageErr("/config [set KEY VALUE]")
	}
	return m.setConfig(ctx, c.session, workspace.Setting{Key: c.args[1], Value: strings.Join(c.args[2:], " ")})
}

// showConfig shows config.yaml, passed through DLP redaction (a key
// pasted into it by mistake is not echoed), and the keys a session may
// change.
func (m *Manager) showConfig() (CommandResult, error) {
	path := workspace.ConfigPath(m.opts.Workspace)
	_, data, err := workspace.FileDigest(path)
	if err != nil {
		return CommandResult{}, err
	}
	text := "(no config.yaml: the defaults apply)\n"
	if data != nil {
		if len(data) > maxConfigShow {
			return CommandResult{}, fmt.Errorf("%s has %d bytes, more than /config shows (%d): read it outside the session", path, len(data), maxConfigShow)
		}
		d, err := dlp.New()
		if err != nil {
			return CommandResult{}, fmt.Errorf("show config: %w", err)
		}
		text, _ = d.Redact(strings.ToValidUTF8(string(data), "\uFFFD"))
		text = strings.Map(func(r rune) rune {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f) {
				return -1
			}
			return r
		}, text)
	}
	return CommandResult{Text: fmt.Sprintf("# %s\n%s\nkeys a session may change: %s", path, text,
		strings.Join(workspace.SessionKeys(), ", "))}, nil
}

// setConfig changes one key through the canonical writer, as this session.
func (m *Manager) setConfig(ctx context.Context, session string, s workspace.Setting) (CommandResult, error) {
	if session == "" {
		return CommandResult{}, errors.New("no current session: configuration changes from the chat are made as a session")
	}
	ch, err := workspace.SetConfig(ctx, m.opts.Workspace, []workspace.Setting{s}, workspace.SetOptions{Session: session, Now: m.opts.Now})
	if err != nil {
		return CommandResult{}, err
	}
	if ch.Unchanged {
		return CommandResult{Text: fmt.Sprintf("%s already says that: nothing changed", s.Key)}, nil
	}
	return CommandResult{Text: fmt.Sprintf("set %s (config.yaml %s → %s; previous file kept as %s)", s.Key, ch.Before, ch.After, ch.Backup)}, nil
}

func (m *Manager) cmdModel(ctx context.Context, c call) (CommandResult, error) {
	switch len(c.args) {
	case 0:
		cfg, err := workspace.LoadConfig(m.opts.Workspace)
		if err != nil {
			return CommandResult{}, err
		}
		text := "chat model: " + chatModel(cfg)
		if cfg.LLM != nil && len(cfg.LLM.Models) > 0 {
			names := make([]string, len(cfg.LLM.Models))
			for i, mc := range cfg.LLM.Models {
				names[i] = mc.Name
			}
			text += "\navailable: " + strings.Join(names, ", ")
		}
		return CommandResult{Text: text}, nil
	case 1:
		v, err := json.Marshal(c.args[0]) // a JSON string is a YAML string: "yes" stays a name
		if err != nil {
			return CommandResult{}, err
		}
		return m.setConfig(ctx, c.session, workspace.Setting{Key: "llm.roles.chat", Value: string(v)})
	}
	return CommandResult{}, usageErr("/model [NAME]")
}
