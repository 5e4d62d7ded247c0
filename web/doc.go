// Package web serves the read-only graph browser of one exact index snapshot on a token-bound
// loopback listener.
//
// What is here: the viewer's guard (GET and HEAD only; the exact 127.0.0.1:PORT Host, against
// DNS rebinding; same-origin Origin, Referer and Sec-Fetch-Site; no CORS; a strict
// Content-Security-Policy and framing, sniffing and referrer headers), the token exchange
// (a 256-bit token in the URL fragment, sent once in an Authorization header and turned into
// an HttpOnly, SameSite=Strict cookie named per port), the snapshot check that answers every
// data request "stale" once the published index file is replaced or altered, and the JSON
// endpoints: status, overview, search, filter, node, bounded neighbourhood, Flow (what flows
// into the focus, edges oriented by meaning), Web (contributors into the focus, with its own
// members and callees as unexpanded branches), Logic and a bounded, project-confined source
// read; and the embedded graph-browser@18 page (web/ui, bundled from npm by the Makefile).
//
// The viewer's lifecycle (one per binding, reuse, idle reclaim) belongs to the worker and the
// manager; this package serves one snapshot until its context ends.
package web
