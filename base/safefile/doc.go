// Package safefile writes files atomically: a reader or a crash sees the old contents or the
// new, never a mix. Every DocForge write to disk goes through it.
package safefile
