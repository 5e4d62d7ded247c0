// Package web will serve the read-only graph browser (graph-browser@17) on a token-bound
// loopback listener, embedding its bundled single-page app. Nothing is implemented here yet.
package web
