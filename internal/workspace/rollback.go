package workspace

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
)

// Rollback says who rolls back and why, for the audit entry.
type Rollback struct {
	// Session is the chat session asking (/undo); "" for the command line.
	Session string
	// Reason is the entry's reason; "" gives "chronicle rollback to #ID".
	Reason string
}

// AuditedRollback rolls c back to snapshot id and records it in log, the
// workspace's audit chain, as a TransactionRollback entry (the snapshot,
// the counts and the undo snapshot, or the error). The caller opens the
// chain first: a rollback that could not be recorded must not start. A
// failed rollback is recorded too; a rollback whose entry could not be
// appended returns an error saying so.
func AuditedRollback(ctx context.Context, log *audit.Log, c *chronicle.Chronicle, id int64, by Rollback) (chronicle.RollbackResult, error) {
	if log == nil {
		return chronicle.RollbackResult{}, fmt.Errorf("nothing was rolled back to #%d: no audit chain to record it", id)
	}
	res, rerr := c.Rollback(ctx, id)
	reason := by.Reason
	if reason == "" {
		reason = fmt.Sprintf("chronicle rollback to #%d", id)
	}
	ev := audit.Event{Type: audit.TransactionRollback, Session: by.Session, Stage: "human", Reason: reason,
		Detail: audit.Detail{Code: "chronicle_rollback", Ref: "snapshot:" + strconv.FormatInt(id, 10),
			Message: fmt.Sprintf("%d restored, %d removed; undo with snapshot #%d", res.Restored, res.Removed, res.Undo.ID)}}
	if rerr != nil {
		ev.Detail.Code, ev.Detail.Message = "chronicle_rollback_failed", rerr.Error()
	}
	if _, aerr := log.Append(context.WithoutCancel(ctx), ev); aerr != nil {
		return res, errors.Join(rerr, fmt.Errorf("the rollback to #%d was not recorded in the audit chain: %w", id, aerr))
	}
	return res, rerr
}
