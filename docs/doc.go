// Package docs carries the reference pages a user of the installed binaries needs without
// DocForge's repository at hand: 'docforge help format' prints the project format, which
// problem remediations point at.
package docs

import _ "embed" // the pages below

//go:embed project-format.md
var projectFormat string

// ProjectFormat is docs/project-format.md: the descriptor, nodes, links, code nodes,
// validation, views and changesets.
func ProjectFormat() string { return projectFormat }
