//go:build !linux

package claudehook

// startDaemon: the hook daemon needs Linux; elsewhere every hook call is
// decided in process and there is no daemon to start or stop.
func (e *env) startDaemon() {}

// checkDaemonAnswered: no daemon outside Linux.
func (e *env) checkDaemonAnswered() {}
