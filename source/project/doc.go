// Package project reads and validates a DocForge project descriptor (docforge.toml, schema
// version 1) and finds the project that contains a directory.
//
// A Descriptor is plain data: the vocabulary (families, kinds, relations, authorities), the
// source roots, limits, views and proposal settings. Validation reports every problem with its
// position; a descriptor with errors is never returned as usable. This package reads only the
// descriptor file and stats the roots it names; it never reads sources or writes anything.
package project
