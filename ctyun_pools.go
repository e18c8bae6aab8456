package main

import (
	"fmt"
	"os"

	"kashi/fleet/ctyun"
	"kashi/fleet/ctyun/ctyunstore"
	"kashi/models"
)

// ctyunProvider is the provider name of China Telecom Cloud pools.
const ctyunProvider = ctyunstore.Provider

// ctyunCredentials returns the key pair in CTYUN_AK and CTYUN_SK, else the one in the file
// path (if given), else none.
func ctyunCredentials(getenv func(string) string, path string) (ctyun.Credentials, error) {
	c, ok, err := ctyun.CredentialsFromEnv(getenv)
	if ok || err != nil || path == "" {
		return c, err
	}
	if c, err = ctyun.LoadCredentials(path); err != nil {
		return c, fmt.Errorf("--ctyun-credentials: %w", err)
	}
	return c, nil
}

// newCtyun builds the ctyun provider over the store's pool settings and open orders.
func newCtyun(cfg serveConfig, store *models.Store) (*ctyun.Provider, error) {
	var userData []byte
	if cfg.CtyunUserData != "" {
		var err error
		if userData, err = os.ReadFile(cfg.CtyunUserData); err != nil {
			return nil, fmt.Errorf("--ctyun-user-data: %w", err)
		}
	}
	st := ctyunstore.Store{S: store}
	return ctyun.New(ctyun.Config{Credentials: cfg.ctyun, Endpoint: cfg.CtyunEndpoint, Pools: st, Orders: st,
		UserData: userData})
}
