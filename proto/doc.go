// Package proto will hold the protobuf contracts of the manager and worker services under
// docforge/v2/, with the generated Go code committed and reproducible by 'make generate'.
// Nothing is defined here yet.
package proto
