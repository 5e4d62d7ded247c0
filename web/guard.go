package web

import (
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// contentSecurityPolicy allows the page its own origin only: no inline script, no external
// asset, no framing, no form posts.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// guard is the viewer's front door. Every request, before any handler runs, must:
//   - be GET or HEAD (the viewer is read-only);
//   - name exactly the listener's loopback address as Host (a DNS-rebound name does not);
//   - come from the viewer's own origin when the browser says where it comes from (Origin,
//     Referer, Sec-Fetch-Site);
//   - for the API, carry the viewer's token in an Authorization header.
//
// No credential ever lives in a cookie: browsers send a 127.0.0.1 cookie to every port of
// that address, so any other local listener would receive it. The page keeps the token in
// its own origin's sessionStorage (origins, unlike cookies, are per port) and sends it on
// each request. No CORS header is ever sent, so other origins cannot read answers either.
type guard struct {
	addr  string // "127.0.0.1:PORT"
	token []byte // 32 random bytes
}

func (g *guard) origin() string { return "http://" + g.addr }

// wrap applies the checks and the security headers around next.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			refuse(w, http.StatusMethodNotAllowed, "the viewer is read-only: only GET and HEAD are served")
			return
		}
		if r.Host != g.addr {
			refuse(w, http.StatusForbidden, "foreign Host header: the viewer answers only "+g.addr)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != g.origin() {
			refuse(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		if ref := r.Header.Get("Referer"); ref != "" && !g.sameOrigin(ref) {
			refuse(w, http.StatusForbidden, "cross-origin referrer refused")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			refuse(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g *guard) sameOrigin(ref string) bool {
	u, err := url.Parse(ref)
	return err == nil && u.Scheme == "http" && u.Host == g.addr
}

// authorized reports whether the request carries the viewer's token.
func (g *guard) authorized(r *http.Request) bool {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && g.valid(bearer)
}

// valid compares a hex token with the viewer's in constant time.
func (g *guard) valid(hexToken string) bool {
	got, err := hex.DecodeString(hexToken)
	return err == nil && len(got) == len(g.token) && subtle.ConstantTimeCompare(got, g.token) == 1
}

// session answers whether the token the page read from its URL fragment (never sent to a
// server by the browser on its own) is this viewer's: the page asks once, before its first
// request, so that a wrong URL is reported as such. It sets nothing.
func (g *guard) session(w http.ResponseWriter, r *http.Request) {
	if !g.authorized(r) {
		refuse(w, http.StatusUnauthorized, "missing or wrong viewer token: open the URL docforge_visualize printed, with its #token part")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"session": "established"})
}
