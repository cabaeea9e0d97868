// Package testfs gives tests a real full filesystem: a small tmpfs they
// mount on a temporary directory (skipped where mounting is not
// permitted) and fill up, so that SQLite, the audit chain and the taint
// journal meet a real ENOSPC rather than an injected one. Linux only.
package testfs
