package models

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// SecretKeySize is the length of the key that encrypts secret environment values (AES-256).
const SecretKeySize = 32

// sealedPrefix marks a stored environment value encrypted with the secret key.
const sealedPrefix = "kashi-sealed:v1:"

// secretBox encrypts and decrypts secret environment values; nil until SetSecretKey.
type secretBox struct{ aead atomic.Pointer[cipher.AEAD] }

// SetSecretKey sets the key that encrypts the environment values a submitter marks secret
// (NewTask.SecretEnv). They are stored sealed with AES-256-GCM and opened only to build the
// assignment of the node that runs the task. Without a key, secret values are refused.
func (s *Store) SetSecretKey(key []byte) error {
	if len(key) != SecretKeySize {
		return fmt.Errorf("models: secret key: want %d bytes, got %d", SecretKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return fmt.Errorf("models: secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return fmt.Errorf("models: secret key: %w", err)
	}
	s.secrets.aead.Store(&aead)
	return nil
}

// sealEnv returns env as stored: a JSON object whose secret values are sealed; "" when
// nothing is secret. A plain value that looks sealed is refused, so it cannot break the
// opening of the node's assignments.
func (s *Store) sealEnv(env map[string]string, secret []string) (string, error) {
	for k, v := range env {
		if strings.HasPrefix(v, sealedPrefix) {
			return "", fieldErr("env."+k, "must not begin with %q", sealedPrefix)
		}
	}
	if len(secret) == 0 {
		return "", nil
	}
	aead := s.secrets.aead.Load()
	if aead == nil {
		return "", fieldErr("secret_env", "this server has no secret key (--secret-key); send no secret values")
	}
	sealed := make(map[string]string, len(env))
	for k, v := range env {
		sealed[k] = v
	}
	for i, name := range secret {
		v, ok := env[name]
		if !ok {
			return "", fieldErr(fmt.Sprintf("secret_env[%d]", i), "%q is not a variable of env", truncate(name, 40))
		}
		nonce := make([]byte, (*aead).NonceSize())
		rand.Read(nonce)
		sealed[name] = sealedPrefix + base64.StdEncoding.EncodeToString((*aead).Seal(nonce, nonce, []byte(v), []byte(name)))
	}
	b, _ := json.Marshal(sealed)
	return string(b), nil
}

// openEnv decodes a stored environment, opening its sealed values.
func (s *Store) openEnv(stored string) (map[string]string, error) {
	var env map[string]string
	if err := json.Unmarshal([]byte(stored), &env); err != nil {
		return nil, err
	}
	for name, v := range env {
		if !strings.HasPrefix(v, sealedPrefix) {
			continue
		}
		aead := s.secrets.aead.Load()
		if aead == nil {
			return nil, errors.New("a secret value is stored but the server has no secret key")
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(v, sealedPrefix))
		n := (*aead).NonceSize()
		if err != nil || len(raw) < n {
			return nil, fmt.Errorf("secret value of %s is malformed", name)
		}
		plain, err := (*aead).Open(nil, raw[:n], raw[n:], []byte(name))
		if err != nil {
			return nil, fmt.Errorf("secret value of %s does not open with this key: %w", name, err)
		}
		env[name] = string(plain)
	}
	return env, nil
}

// EnvNames returns the sorted variable names of a stored environment: what the API shows
// after submit, never the values.
func EnvNames(stored string) []string {
	var env map[string]string
	json.Unmarshal([]byte(stored), &env) // written by the store; always an object
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
