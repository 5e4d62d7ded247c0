package problem

import (
	"errors"
	"fmt"
)

// Error is a Go error that carries a Problem, so a failure deep in the index can surface to
// the CLI or an MCP client with its stable code and remediation intact.
type Error struct {
	Problem Problem
	// Problems holds the full list when the failure is a failed validation.
	Problems []Problem
	Err      error // the underlying cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Problem.Code, e.Problem.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Problem.Code, e.Problem.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code c, no location, and the code's default remediation.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Problem: New(c, Location{}, format, args...)}
}

// Wrap returns an *Error with code c whose cause is err.
func Wrap(c Code, err error, format string, args ...any) *Error {
	e := Errorf(c, format, args...)
	e.Err = err
	return e
}

// CodeOf returns the code carried by err, or Internal when err carries none.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Problem.Code
	}
	return Internal
}
