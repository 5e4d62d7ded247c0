// Package web serves the read-only graph browser of one exact index snapshot on a token-bound
// loopback listener.
//
// What is here: the viewer's guard (GET and HEAD only; the exact 127.0.0.1:PORT Host, against
// DNS rebinding; same-origin Origin, Referer and Sec-Fetch-Site; no CORS; a strict
// Content-Security-Policy and framing, sniffing and referrer headers), the token (256 bits in
// the URL fragment; the page keeps it in its own origin's sessionStorage and sends it in an
// Authorization header on every request; never a cookie, which browsers would send to every
// port of 127.0.0.1), the snapshot check that answers every
// data request "stale" once the published index file is replaced or altered, and the JSON
// endpoints: status, overview, search, filter, node, bounded neighbourhood, Flow (what flows
// into the focus, edges oriented by meaning), Web (contributors into the focus, with its own
// members and callees as unexpanded branches), Logic and a bounded, source read confined
// to the node's declared root and to the generation's own bytes; and the embedded graph-browser@18 page (web/ui, bundled from npm by the Makefile).
//
// The viewer's lifecycle (one per binding, reuse, idle reclaim) belongs to the worker and the
// manager; this package serves one snapshot until its context ends.
package web
