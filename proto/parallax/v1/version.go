package parallaxv1

// ProtocolVersion is the version of the parallax.v1 protocol this code
// speaks. The agent sends it in Hello and the engine refuses any other
// value: both ends are built from the same commit, so a mismatch means a
// stale or foreign binary. Raise it on any change an older peer would
// misread (a field's meaning, a required new message); adding an optional
// field a peer may ignore does not need it. See proto/README.md.
const ProtocolVersion uint32 = 2
