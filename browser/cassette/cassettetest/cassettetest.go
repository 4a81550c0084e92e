// Package cassettetest holds the test helpers of cassette replays: a Chromium whose every connection is counted,
// and a cassette's bytes for grepping.
package cassettetest

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"webbench/browser/cassette"
)

// CountConnections listens on loopback, accepting and closing every connection, until the test ends. args are
// the Chromium flags that send every connection the browser opens there, loopback included: --proxy-server,
// and --proxy-bypass-list=<-loopback>, which removes Chromium's implicit bypass of localhost
// (https://chromium.googlesource.com/chromium/src/+/HEAD/net/docs/proxy.md#overriding-the-implicit-bypass-rules).
// conns counts the connections accepted.
func CountConnections(t testing.TB) (args []string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			_ = c.Close()
		}
	}()
	return []string{"--proxy-server=http://" + ln.Addr().String(), "--proxy-bypass-list=<-loopback>"}, conns
}

// Bytes is every file of the cassette at dir concatenated, bodies decompressed (cassette.Cassette.Blob).
func Bytes(t testing.TB, dir string) []byte {
	t.Helper()
	c, err := cassette.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if name, ok := strings.CutSuffix(fi.Name(), ".zst"); ok && err == nil {
			b, err = c.Blob(name)
		}
		all = append(all, b...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
