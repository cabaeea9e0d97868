// Package tools is the contract between the engine and the executors
// of decided actions (internal/tools/<group>).
//
// An Executor runs one Call: the decoded action plus the Plan the
// executor took when the gate decided, which it checks again just before
// acting. It returns a Result for the model and, when the action failed
// or was refused, an *Error with a stable reason code (Code*), the
// operation and the path or command part that failed.
//
// Defenses common to every executor:
//   - Fail closed: a missing or mismatched plan, an unknown action type,
//     or any internal error refuses the action; there is no path that
//     runs an action it could not check.
//   - Errors and results name paths and programs, never the contents of
//     files or the values of secrets.
//   - Output is bounded; Result.Truncated says when it was cut.
package tools
