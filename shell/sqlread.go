package shell

import (
	"regexp"
	"strings"
)

// readOnlySQLStmt is one plain read: SELECT, SHOW, EXPLAIN (not ANALYZE,
// which runs the statement), or psql's listing meta-commands.
var readOnlySQLStmt = regexp.MustCompile(`^(?i)(?:select|show|explain|\\d[tivsnf+]*|\\l\+?|\\dn|\\conninfo)(?:\s|$)`)

// sqlEscapes are the SQL and client features that reach the file system,
// run programs or change data even inside a SELECT: COPY ... PROGRAM,
// psql's \! and \copy, MySQL's system and INTO OUTFILE, file functions,
// large objects, data-changing CTEs and set_config.
var sqlEscapes = [...]string{"\\!", "\\copy", "\\o", "\\w", "\\i", "\\g", "\\set", "program", "system",
	"outfile", "dumpfile", "load_file", "pg_read", "pg_ls_dir", "lo_", "copy", "dblink",
	"insert", "update", "delete", "drop", "alter", "create", "truncate", "grant", "revoke",
	"set_config", "pg_terminate", "pg_cancel", "analyze", "into", "call", "do", "exec",
	"lock", "sleep", "benchmark", "xp_", "openrowset", "bulk", "sys_", "shell", "query_to_xml"}

// readOnlySQL reports a single statement that only reads (select 1,
// show tables, \dt): the code a client is given to check a connection or
// look at a schema. Anything else stays opaque.
func readOnlySQL(code string) bool {
	q := strings.TrimSpace(code)
	q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	if q == "" || len(q) > 512 || strings.ContainsAny(q, ";`\n") || !readOnlySQLStmt.MatchString(q) {
		return false
	}
	l := strings.ToLower(q)
	for _, e := range sqlEscapes {
		if strings.Contains(l, e) {
			return false
		}
	}
	return true
}
