package secret

import "testing"

func TestParam(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "access_token": true, "id_token": true, "sig": true, "signature": true,
		"X-Amz-Signature": true, "X-Goog-Signature": true, "api-key": true, "api_key": true, "code": true,
		"client_secret": true, "refresh_token": true, "Password": true,
		"design": false, "author": false, "q": false, "keyword": false, "monkey": false,
	} {
		if got := Param(name); got != want {
			t.Errorf("Param(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Cookie": true, "Set-Cookie": true, "Authorization": true, "X-Api-Key": true, "X-Auth-Token": true,
		"X-CSRF-Token": true, "Content-Type": false, "Author": false,
	} {
		if got := Header(name); got != want {
			t.Errorf("Header(%q) = %v, want %v", name, got, want)
		}
	}
}
