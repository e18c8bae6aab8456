package ctyun

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Environment variables, and lines of a credentials file, that hold the key pair.
const (
	EnvAK = "CTYUN_AK"
	EnvSK = "CTYUN_SK"
)

// CredentialsFromEnv returns the key pair in CTYUN_AK and CTYUN_SK; ok is false when neither
// is set, and err says when only one is.
func CredentialsFromEnv(getenv func(string) string) (c Credentials, ok bool, err error) {
	c = Credentials{AK: getenv(EnvAK), SK: getenv(EnvSK)}
	switch {
	case c.AK == "" && c.SK == "":
		return c, false, nil
	case c.AK == "" || c.SK == "":
		return Credentials{}, false, fmt.Errorf("ctyun: set both %s and %s", EnvAK, EnvSK)
	}
	return c, true, nil
}

// LoadCredentials reads the key pair from a file of CTYUN_AK=… and CTYUN_SK=… lines (blank
// lines and # comments allowed). The file must be readable by its owner only.
func LoadCredentials(path string) (Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("ctyun: credentials: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Credentials{}, fmt.Errorf("ctyun: credentials: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return Credentials{}, fmt.Errorf("ctyun: credentials file %s is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return Credentials{}, errors.New("ctyun: credentials file: a line is not NAME=value") // the line may hold the secret
		}
		vals[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if err := sc.Err(); err != nil {
		return Credentials{}, fmt.Errorf("ctyun: credentials: %w", err)
	}
	c, ok, err := CredentialsFromEnv(func(k string) string { return vals[k] })
	if err == nil && !ok {
		err = fmt.Errorf("ctyun: credentials file %s has no %s and %s", path, EnvAK, EnvSK)
	}
	return c, err
}
