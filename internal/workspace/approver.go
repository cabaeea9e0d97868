package workspace

import (
	"errors"
	"fmt"
	"os"

	"github.com/parallax/parallax/approval"
)

// Approver builds the workspace's approval broker from config.yaml, with
// extra channels (a terminal) added to the configured ones. It returns
// nil, nil when the workspace configures no approval and no extra channel
// is given. The webhook channel, when configured, is returned too: its
// Handler receives the answers (parallax serve mounts it).
func (w *Workspace) Approver(extra ...approval.Channel) (*approval.Broker, *approval.Webhook, error) {
	ac := w.Config.Approval
	if ac == nil && len(extra) == 0 {
		return nil, nil, nil
	}
	cfg := approval.Config{Recorder: w.Audit, Channels: extra}
	var hook *approval.Webhook
	if ac != nil {
		cfg.Timeout, cfg.HourlyLimit, cfg.GrantTTL = ac.Timeout.Duration, ac.HourlyLimit, ac.GrantTTL.Duration
		if ac.Webhook != nil {
			secret := os.Getenv(ac.Webhook.SecretEnv)
			if secret == "" {
				return nil, nil, fmt.Errorf("approval webhook: the environment variable %s (its secret) is not set", ac.Webhook.SecretEnv)
			}
			var err error
			hook, err = approval.NewWebhook(approval.WebhookConfig{URL: ac.Webhook.URL, Secret: []byte(secret)})
			if err != nil {
				return nil, nil, fmt.Errorf("approval webhook: %w", err)
			}
			cfg.Channels = append(cfg.Channels, hook)
		}
	}
	if len(cfg.Channels) == 0 {
		return nil, nil, errors.New("approval is configured with no channel (add a webhook, or run where a terminal can ask)")
	}
	b, err := approval.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return b, hook, nil
}
