package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Conversations are the chat sessions of the own agent: their title,
// their messages and their turns with the Chronicle snapshots each turn
// took (for /undo). They share the id of the taint session (the sessions
// table) but are kept apart from it: deleting a conversation never drops
// the security record of what its session saw.

// Title sources, in rising precedence: a later source never gives way to
// an earlier one (a user's title is never replaced by the model's).
const (
	TitleNone  = ""
	TitleFirst = "first" // the first words of the first message
	TitleModel = "model" // written by the titling model
	TitleUser  = "user"  // set with /title
)

// MessageRoles are the roles a conversation message may have.
func MessageRoles() []string { return []string{"user", "assistant", "system", "tool"} }

// MaxMessageBytes bounds one message's text.
const MaxMessageBytes = 1 << 20

// Conversation is one chat session.
type Conversation struct {
	ID          string
	Title       string
	TitleSource string
	Created     time.Time
	Updated     time.Time
	Messages    int // every message
	UserTurns   int // messages of role user
}

// ConversationMessage is one message of a conversation.
type ConversationMessage struct {
	Seq  int64
	Role string
	Text string
	At   time.Time
}

// CreateConversation records a new, empty conversation created at at. An
// existing id is an error: ids are never reused.
func (db *DB) CreateConversation(ctx context.Context, id string, at time.Time) error {
	if id == "" {
		return errors.New("create conversation: empty id")
	}
	return db.write(ctx, "create conversation "+id, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO conversations (id, created_at, updated_at) VALUES (?, ?, ?)", id, nanos(at), nanos(at))
		return err
	})
}

const conversationColumns = `c.id, c.title, c.title_source, c.created_at, c.updated_at,
(SELECT count(*) FROM conversation_messages m WHERE m.conversation = c.id),
(SELECT count(*) FROM conversation_messages m WHERE m.conversation = c.id AND m.role = 'user')`

func scanConversation(sc interface{ Scan(...any) error }) (Conversation, error) {
	var c Conversation
	var created, updated int64
	if err := sc.Scan(&c.ID, &c.Title, &c.TitleSource, &created, &updated, &c.Messages, &c.UserTurns); err != nil {
		return Conversation{}, err
	}
	c.Created, c.Updated = fromNanos(created), fromNanos(updated)
	return c, nil
}

// GetConversation returns one conversation, or ErrNotFound.
func (db *DB) GetConversation(ctx context.Context, id string) (Conversation, error) {
	c, err := scanConversation(db.r.QueryRowContext(ctx, "SELECT "+conversationColumns+" FROM conversations c WHERE c.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("get conversation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("get conversation %s: %w", id, err)
	}
	return c, nil
}

// ListConversations returns at most limit conversations, the most
// recently active first.
func (db *DB) ListConversations(ctx context.Context, limit int) ([]Conversation, error) {
	return db.queryConversations(ctx, "list conversations",
		"SELECT "+conversationColumns+" FROM conversations c ORDER BY c.updated_at DESC, c.id LIMIT ?", limit)
}

// SearchConversations returns at most limit conversations whose title or
// any message contains q (case-insensitive for ASCII; LIKE wildcards in q
// are taken literally), the most recently active first.
func (db *DB) SearchConversations(ctx context.Context, q string, limit int) ([]Conversation, error) {
	if q == "" {
		return nil, errors.New("search conversations: empty query")
	}
	pat := "%" + escapeLike(q) + "%"
	return db.queryConversations(ctx, "search conversations", "SELECT "+conversationColumns+` FROM conversations c
WHERE c.title LIKE ?1 ESCAPE '\' OR EXISTS (SELECT 1 FROM conversation_messages m
	WHERE m.conversation = c.id AND m.text LIKE ?1 ESCAPE '\')
ORDER BY c.updated_at DESC, c.id LIMIT ?2`, pat, limit)
}

// escapeLike makes %, _ and \ literal in a LIKE pattern escaped with \.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func (db *DB) queryConversations(ctx context.Context, what, q string, args ...any) ([]Conversation, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// AppendMessage adds a message written at at to a conversation and
// returns its sequence number. An unknown conversation is ErrNotFound.
func (db *DB) AppendMessage(ctx context.Context, id, role, text string, at time.Time) (int64, error) {
	what := "append message to conversation " + id
	switch {
	case !slices.Contains(MessageRoles(), role):
		return 0, fmt.Errorf("%s: role %q is not one of %s", what, role, strings.Join(MessageRoles(), ", "))
	case len(text) > MaxMessageBytes:
		return 0, fmt.Errorf("%s: %d bytes of text, at most %d", what, len(text), MaxMessageBytes)
	}
	var seq int64
	err := db.write(ctx, what, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE conversations SET updated_at = ? WHERE id = ?", nanos(at), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(ErrNotFound, err)
		}
		return tx.QueryRowContext(ctx, `INSERT INTO conversation_messages (conversation, seq, role, text, at)
VALUES (?1, (SELECT COALESCE(max(seq), 0) + 1 FROM conversation_messages WHERE conversation = ?1), ?2, ?3, ?4)
RETURNING seq`, id, role, text, nanos(at)).Scan(&seq)
	})
	return seq, err
}

// Messages returns the last limit messages of a conversation (all when
// limit ≤ 0), oldest first.
func (db *DB) Messages(ctx context.Context, id string, limit int) ([]ConversationMessage, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.r.QueryContext(ctx, `SELECT seq, role, text, at FROM (SELECT seq, role, text, at
FROM conversation_messages WHERE conversation = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`, id, limit)
	if err != nil {
		return nil, fmt.Errorf("read messages of conversation %s: %w", id, err)
	}
	defer rows.Close()
	var out []ConversationMessage
	for rows.Next() {
		var m ConversationMessage
		var at int64
		if err := rows.Scan(&m.Seq, &m.Role, &m.Text, &at); err != nil {
			return nil, fmt.Errorf("read messages of conversation %s: %w", id, err)
		}
		m.At = fromNanos(at)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages of conversation %s: %w", id, err)
	}
	return out, nil
}

var titleRank = map[string]int{TitleNone: 0, TitleFirst: 1, TitleModel: 2, TitleUser: 3}

// SetConversationTitle sets the title unless the current one comes from
// a source of higher precedence (user over model over first words); set
// reports whether it was written.
func (db *DB) SetConversationTitle(ctx context.Context, id, title, source string) (set bool, err error) {
	rank, ok := titleRank[source]
	if !ok || source == TitleNone {
		return false, fmt.Errorf("set title of conversation %s: unknown source %q", id, source)
	}
	err = db.write(ctx, "set title of conversation "+id, func(tx *sql.Tx) error {
		var cur string
		err := tx.QueryRowContext(ctx, "SELECT title_source FROM conversations WHERE id = ?", id).Scan(&cur)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil || titleRank[cur] > rank {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE conversations SET title = ?, title_source = ? WHERE id = ?", title, source, id)
		set = err == nil
		return err
	})
	return set, err
}

// DeleteConversation removes a conversation with its messages, turns and
// their snapshot notes (the snapshots themselves stay in Chronicle) and
// returns how many messages it had. Unknown: ErrNotFound.
func (db *DB) DeleteConversation(ctx context.Context, id string) (int, error) {
	var n int
	err := db.write(ctx, "delete conversation "+id, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM conversation_messages WHERE conversation = ?", id).Scan(&n); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM conversations WHERE id = ?", id)
		if err != nil {
			return err
		}
		if k, err := res.RowsAffected(); err != nil || k == 0 {
			return errors.Join(ErrNotFound, err)
		}
		return nil
	})
	return n, err
}

// StartConversationTurn records a new turn of a conversation, started at
// at.
func (db *DB) StartConversationTurn(ctx context.Context, id, turn string, at time.Time) error {
	if turn == "" {
		return fmt.Errorf("start turn of conversation %s: empty turn id", id)
	}
	return db.write(ctx, "start turn "+turn+" of conversation "+id, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE conversations SET updated_at = ? WHERE id = ?", nanos(at), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(ErrNotFound, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO conversation_turns (conversation, id, seq, started_at)
VALUES (?1, ?2, (SELECT COALESCE(max(seq), 0) + 1 FROM conversation_turns WHERE conversation = ?1), ?3)`, id, turn, nanos(at))
		return err
	})
}

// AddTurnSnapshot notes that turn took Chronicle snapshot id. The turn
// must exist; noting the same snapshot twice is harmless.
func (db *DB) AddTurnSnapshot(ctx context.Context, id, turn string, snapshot int64) error {
	what := fmt.Sprintf("note snapshot %d of turn %s of conversation %s", snapshot, turn, id)
	if snapshot <= 0 {
		return fmt.Errorf("%s: snapshot id must be positive", what)
	}
	return db.write(ctx, what, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM conversation_turns WHERE conversation = ? AND id = ?", id, turn).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO turn_snapshots (conversation, turn, snapshot) VALUES (?, ?, ?)
ON CONFLICT DO NOTHING`, id, turn, snapshot)
		return err
	})
}

// LastUndoableTurn returns the latest turn of a conversation that took
// snapshots and was not undone yet, with its snapshot ids in ascending
// order; ErrNotFound when there is none.
func (db *DB) LastUndoableTurn(ctx context.Context, id string) (string, []int64, error) {
	what := "find the turn to undo in conversation " + id
	var turn string
	err := db.r.QueryRowContext(ctx, `SELECT t.id FROM conversation_turns t WHERE t.conversation = ? AND t.undone_at IS NULL
AND EXISTS (SELECT 1 FROM turn_snapshots s WHERE s.conversation = t.conversation AND s.turn = t.id)
ORDER BY t.seq DESC LIMIT 1`, id).Scan(&turn)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	rows, err := db.r.QueryContext(ctx, "SELECT snapshot FROM turn_snapshots WHERE conversation = ? AND turn = ? ORDER BY snapshot", id, turn)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return "", nil, fmt.Errorf("%s: %w", what, err)
		}
		ids = append(ids, s)
	}
	if err := rows.Err(); err != nil {
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	return turn, ids, nil
}

// MarkTurnUndone stamps a turn as undone at at, so the next undo goes
// further back.
func (db *DB) MarkTurnUndone(ctx context.Context, id, turn string, at time.Time) error {
	return db.write(ctx, "mark turn "+turn+" of conversation "+id+" undone", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE conversation_turns SET undone_at = ? WHERE conversation = ? AND id = ? AND undone_at IS NULL",
			nanos(at), id, turn)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(ErrNotFound, err)
		}
		return nil
	})
}
