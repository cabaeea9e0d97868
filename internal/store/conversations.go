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
		if err := turnExists(ctx, tx, id, turn); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO turn_snapshots (conversation, turn, snapshot) VALUES (?, ?, ?)
ON CONFLICT DO NOTHING`, id, turn, snapshot)
		return err
	})
}

// Kinds of a turn's effects (TurnEffect.Kind).
const (
	EffectWrite   = "write"   // a path outside the workspace (or .parallax) changed, which no snapshot covers
	EffectNetwork = "network" // a host:port a command reached through its egress proxy
)

// TurnEffect is something a turn did that no Chronicle snapshot covers,
// so /undo cannot revert it: a kind and what it concerns (a path, a
// host:port).
type TurnEffect struct{ Kind, Subject string }

// MaxTurnEffects bounds the effects kept for one turn; MaxEffectSubject
// the bytes of one subject.
const (
	MaxTurnEffects   = 64
	MaxEffectSubject = 512
)

// AddTurnEffects notes what turn did that no snapshot covers. The turn
// must exist; an effect noted twice is kept once, and past
// MaxTurnEffects of a turn the rest are dropped (UndoableTurn.Effects
// then holds MaxTurnEffects: say there may be more).
func (db *DB) AddTurnEffects(ctx context.Context, id, turn string, effects []TurnEffect) error {
	what := fmt.Sprintf("note the effects of turn %s of conversation %s", turn, id)
	for _, e := range effects {
		if err := e.Check(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if len(effects) == 0 {
		return nil
	}
	return db.write(ctx, what, func(tx *sql.Tx) error {
		if err := turnExists(ctx, tx, id, turn); err != nil {
			return err
		}
		for _, e := range effects {
			_, err := tx.ExecContext(ctx, `INSERT INTO turn_effects (conversation, turn, kind, subject)
SELECT ?1, ?2, ?3, ?4 WHERE (SELECT count(*) FROM turn_effects WHERE conversation = ?1 AND turn = ?2) < ?5
ON CONFLICT DO NOTHING`, id, turn, e.Kind, e.Subject, MaxTurnEffects)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Check reports whether e can be kept: a known kind, a subject of 1 to
// MaxEffectSubject bytes.
func (e TurnEffect) Check() error {
	if (e.Kind != EffectWrite && e.Kind != EffectNetwork) || e.Subject == "" || len(e.Subject) > MaxEffectSubject {
		return fmt.Errorf("effect %q %q: want kind %s or %s and 1-%d bytes of subject", clipped(e.Kind),
			clipped(e.Subject), EffectWrite, EffectNetwork, MaxEffectSubject)
	}
	return nil
}

func clipped(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// UndoableTurn is the turn /undo goes back over: its Chronicle snapshots
// in ascending order and what it did that they do not cover, ordered by
// kind and subject.
type UndoableTurn struct {
	ID        string
	Snapshots []int64
	Effects   []TurnEffect
}

// LastUndoableTurn returns the latest turn of a conversation that took
// snapshots or did something no snapshot covers, and was not undone yet;
// ErrNotFound when there is none.
func (db *DB) LastUndoableTurn(ctx context.Context, id string) (UndoableTurn, error) {
	what := "find the turn to undo in conversation " + id
	var t UndoableTurn
	err := db.r.QueryRowContext(ctx, `SELECT t.id FROM conversation_turns t WHERE t.conversation = ? AND t.undone_at IS NULL
AND (EXISTS (SELECT 1 FROM turn_snapshots s WHERE s.conversation = t.conversation AND s.turn = t.id)
  OR EXISTS (SELECT 1 FROM turn_effects e WHERE e.conversation = t.conversation AND e.turn = t.id))
ORDER BY t.seq DESC LIMIT 1`, id).Scan(&t.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("%s: %w", what, err)
	}
	if err := db.turnRows(ctx, "SELECT snapshot FROM turn_snapshots WHERE conversation = ? AND turn = ? ORDER BY snapshot",
		id, t.ID, func(rows *sql.Rows) error {
			var s int64
			err := rows.Scan(&s)
			t.Snapshots = append(t.Snapshots, s)
			return err
		}); err != nil {
		return t, fmt.Errorf("%s: %w", what, err)
	}
	if err := db.turnRows(ctx, "SELECT kind, subject FROM turn_effects WHERE conversation = ? AND turn = ? ORDER BY kind, subject",
		id, t.ID, func(rows *sql.Rows) error {
			var e TurnEffect
			err := rows.Scan(&e.Kind, &e.Subject)
			t.Effects = append(t.Effects, e)
			return err
		}); err != nil {
		return t, fmt.Errorf("%s: %w", what, err)
	}
	return t, nil
}

// turnRows runs query for one turn and hands each row to scan.
func (db *DB) turnRows(ctx context.Context, query, id, turn string, scan func(*sql.Rows) error) error {
	rows, err := db.r.QueryContext(ctx, query, id, turn)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
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

// turnExists returns ErrNotFound unless conversation id has the turn.
func turnExists(ctx context.Context, tx *sql.Tx, id, turn string) error {
	var one int
	err := tx.QueryRowContext(ctx, "SELECT 1 FROM conversation_turns WHERE conversation = ? AND id = ?", id, turn).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
