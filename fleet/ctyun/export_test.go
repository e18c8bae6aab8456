package ctyun

import (
	"net/http"
	"testing"
	"time"
)

// The HTTPS fake, for the package's external tests (which use the database).

// NewFakeCloud returns the fake cloud answering to creds.
func NewFakeCloud(t *testing.T, creds Credentials) *fakeCloud { return newFakeCloud(t, creds) }

// URL and Client reach the fake.
func (f *fakeCloud) URL() string          { return f.srv.URL }
func (f *fakeCloud) Client() *http.Client { return f.srv.Client() }

// SetOrderDelay sets how long an order stays open.
func (f *fakeCloud) SetOrderDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.orderDelay = d
}

// ForgetClientTokens makes the fake forget every clientToken it answered, as the cloud does
// once a token's window has passed: a second create-instance of a key makes a second instance.
func (f *fakeCloud) ForgetClientTokens() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.tokens)
}

// Creates counts the create-instance calls that placed an order; Live counts a display
// name's instances (and open orders) not unsubscribed; BadSignatures the refused signatures.
func (f *fakeCloud) Creates() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.creates)
}

func (f *fakeCloud) Live(displayName string) int { return f.live(displayName) }

func (f *fakeCloud) BadSignatures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.badSigs
}
