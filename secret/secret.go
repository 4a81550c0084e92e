// Package secret says which parameter and header names carry credentials or session state. It is the one owner
// of that rule: the model-call cache (llm) keeps such parameters out of its keys, the cassette
// (browser/cassette) out of its keys and files. It imports nothing of the module, so every layer may use it.
package secret

import "strings"

var (
	// names are parameter names whose values are credentials or session ids (lower case).
	names = map[string]bool{"key": true, "api_key": true, "apikey": true, "api-key": true, "subscription-key": true,
		"sig": true, "sid": true, "auth": true, "jsessionid": true, "phpsessid": true, "aspsessionid": true,
		"x-amz-credential": true, "client_secret": true, "password": true, "passwd": true, "pwd": true, "otp": true,
		"code": true}
	// parts mark a secret parameter or header when its name contains one.
	parts = []string{"token", "secret", "session", "signature", "passw", "credential", "csrf", "xsrf"}
	// headerParts mark a secret header when its name contains one.
	headerParts = []string{"cookie", "authorization", "auth-", "api-key", "apikey", "x-amz-security"}
)

// Param reports whether a query (or form) parameter named name carries a credential or session id:
// access_token, id_token, key, api_key, api-key, sig, signature, sid, session_id, jsessionid, client_secret,
// code (an OAuth authorization code), … — a known name, or one containing token, secret, session, signature,
// passw, credential, csrf or xsrf. Names that merely contain a short secret word (design, author, monkey) are not.
func Param(name string) bool {
	n := strings.ToLower(name)
	return names[n] || containsAny(n, parts)
}

// Header reports whether a request or response header carries a credential or session state: Cookie,
// Set-Cookie, Authorization, Proxy-Authorization, X-Api-Key, X-Auth-Token, X-CSRF-Token, … — a name containing
// cookie, authorization, auth-, api-key, apikey, or one of Param's parts.
func Header(name string) bool {
	n := strings.ToLower(name)
	return containsAny(n, headerParts) || containsAny(n, parts)
}

func containsAny(s string, subs []string) bool {
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
