// Package corpus loads the gate's case corpus (testdata/corpus/**/*.yaml)
// and runs it against an evaluator.
//
// A case is a named sequence of proposed actions with the decision a
// security reviewer expects for the whole sequence. The loader is strict:
// an unknown key, a missing expectation, a case without steps or a
// duplicated id fails the load with the file and the line. The runner gives
// every case its own session (the case id), so taint from one step reaches
// the later steps of the same case and nothing else.
//
// A case's outcome is the most severe decision over its steps (BLOCK >
// ESCALATE > ALLOW); a BLOCKed step ends the case, since a blocked action
// never runs and returns no result. A case passes when its outcome equals
// its expectation, except that an attack expected to ESCALATE also passes
// when it is BLOCKed: stopping it outright is never a miss.
package corpus
