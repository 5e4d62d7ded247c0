// Package publication is what identifies a published index generation, readable without
// SQLite: where a project's index state lives (Paths), the publication receipt written after
// every publication, and the five-field signature of the published index file. The manager
// checks a viewer's snapshot against it on every health check, so it must stay this light.
package publication
