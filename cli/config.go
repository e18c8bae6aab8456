package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"kashi/api"
)

// config is what `kashi login` stores: the server and a token.
type config struct {
	Server string `json:"server"`
	Token  string `json:"token"`
}

// configDir is KASHI_CONFIG_DIR, else $XDG_CONFIG_HOME/kashi, else ~/.config/kashi. It holds
// config.json and the task templates (templates/NAME.yaml).
func configDir(e *Env) (string, error) {
	if d := e.Getenv("KASHI_CONFIG_DIR"); d != "" {
		return d, nil
	}
	if d := e.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "kashi"), nil
	}
	if h := e.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "kashi"), nil
	}
	return "", exitf(ExitUsage, "no config folder: set KASHI_CONFIG_DIR or HOME")
}

// loadConfig reads the config file; a missing file is an empty config.
func loadConfig(e *Env) (config, string, error) {
	var c config
	dir, err := configDir(e)
	if err != nil {
		return c, "", err
	}
	path := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, path, nil
	}
	if err != nil {
		return c, path, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, path, exitf(ExitUsage, "%s: %v", path, err)
	}
	return c, path, nil
}

// connFlags are the connection flags every verb has.
type connFlags struct {
	server string
}

// client builds the API client: the server from --server, KASHI_SERVER or the config file;
// the token from KASHI_TOKEN or the config file; the language from the environment (lang).
func (f connFlags) client(e *Env) (*Client, error) {
	c, path, err := loadConfig(e)
	if err != nil {
		return nil, err
	}
	server := firstOf(f.server, e.Getenv("KASHI_SERVER"), c.Server)
	token := firstOf(e.Getenv("KASHI_TOKEN"), c.Token)
	switch {
	case server == "":
		return nil, exitf(ExitUnreachable, "no server: run `kashi login --server URL` or set KASHI_SERVER")
	case token == "":
		return nil, exitf(ExitUnreachable, "no token: run `kashi login` or set KASHI_TOKEN (no token in %s)", path)
	}
	return &Client{Server: strings.TrimRight(server, "/"), Token: token, HTTP: e.HTTP, Lang: lang(e)}, nil
}

// lang is the language the server should write its sentences in (a task's reason, a wait's):
// KASHI_LANG, else the locale of the environment (LC_ALL, LC_MESSAGES, LANG, in POSIX's
// order) as a language tag, zh_CN.UTF-8 being zh-CN; "" for the C or POSIX locale or none,
// which the server answers in English.
func lang(e *Env) string {
	for _, k := range []string{"KASHI_LANG", "LC_ALL", "LC_MESSAGES", "LANG"} {
		v := e.Getenv(k)
		if v == "" {
			continue
		}
		v, _, _ = strings.Cut(v, ".")
		v, _, _ = strings.Cut(v, "@")
		if v == "C" || v == "POSIX" {
			return ""
		}
		return strings.ReplaceAll(v, "_", "-")
	}
	return ""
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// runLogin checks a token against the server and stores both in the config file (mode 0600).
// The token comes from KASHI_TOKEN or the first line of standard input, never from a flag,
// so that it stays out of the shell history.
func runLogin(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "login")
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	c, path, err := loadConfig(e)
	if err != nil {
		return err
	}
	c.Server = strings.TrimRight(firstOf(f.conn.server, e.Getenv("KASHI_SERVER"), c.Server), "/")
	if c.Server == "" {
		return exitf(ExitUsage, "login: --server URL is required the first time")
	}
	c.Token = e.Getenv("KASHI_TOKEN")
	if c.Token == "" {
		fmt.Fprint(e.Stderr, "API token (create one under Tokens in the web UI): ")
		line, err := bufio.NewReader(e.Stdin).ReadString('\n')
		if err != nil && line == "" {
			return exitf(ExitUsage, "login: no token on standard input")
		}
		c.Token = strings.TrimSpace(line)
	}
	if c.Token == "" {
		return exitf(ExitUsage, "login: empty token")
	}
	var who api.Me
	cl := &Client{Server: c.Server, Token: c.Token, HTTP: e.HTTP}
	if err := cl.get(ctx, "/api/v1/me", nil, &who); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "logged in to %s as %s (%s); saved in %s\n", c.Server, who.Name, who.Role, path)
	return nil
}
