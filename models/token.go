package models

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// NewToken returns a fresh random bearer token (256 bits, hex) and its hash. Only the hash is
// ever stored; the token is shown once.
func NewToken(prefix string) (token, hash string) {
	var b [32]byte
	rand.Read(b[:])
	token = prefix + hex.EncodeToString(b[:])
	return token, HashToken(token)
}

// HashToken is how tokens are stored at rest: SHA-256, hex. Tokens carry 256 random bits, so
// a fast hash is enough; passwords use a slow one.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
